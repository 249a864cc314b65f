import type { Role, TokenFactPayload, TokenInfo } from '@switchyard/contracts';
import type { FactsOf } from './fact-ports';

/** Who is calling: resolved from a bearer token or a stream ticket. */
export interface Principal {
  tokenId: string;
  userId: string;
  /** The person's display name now (decision 0042): facts and decisions record it. Absent where the store does not read it. */
  userName?: string;
  workspaceId: string;
  workspaceSlug: string;
  role: Role;
  /**
   * When the token stops working (ISO 8601); absent when it never expires.
   * A string, not a Date, so that a principal survives JSON (stream tickets).
   */
  expiresAt?: string;
  /**
   * Set when the token is a run's agent token: the caller is that agent,
   * acting as its creator (`userId`). Facts it records are attributed to the
   * agent and caused by the run (docs/decisions/0014-platform-mcp-and-agent-tokens.md).
   */
  agent?: AgentCaller;
  /**
   * Set on a try run's agent token (decision 0027): its calls are made as
   * `role` (viewer: a shadow run changes nothing), while `tools/list` shows
   * the tools of this role (its member's, capped like any agent's), so the
   * model is offered what the agent would have and its writes are captured.
   */
  shadowOf?: Role;
  /**
   * Set on a crafting turn's agent token (decision 0056): the run may start
   * shadow tries of its draft (`try_crafted_draft`) for the person it crafts with.
   */
  crafting?: true;
  /**
   * Set when the caller is a Mattermost user linked to this member (button,
   * slash command): there is no API token, and `tokenId` names the link.
   */
  via?: 'mattermost';
}

/** The run an agent token was minted for. */
export interface AgentCaller {
  runId: string;
  agentId: string;
  /** The run's causation depth; what it records is at `depth + 1`. */
  depth: number;
}

/** Agent tokens (the runner mints and revokes them; the gateway only reads). */
export interface AgentTokenStore {
  /**
   * The principal of an agent token with this SHA-256 that is not revoked,
   * not expired, whose run has not ended and whose creator is still a member
   * of the workspace; null otherwise.
   */
  findActiveAgentToken(hash: string): Promise<Principal | null>;
}

/** What a new API token is made of. */
export interface NewToken {
  workspaceId: string;
  userId: string;
  name: string;
  role: Role;
  expiresAt: Date | null;
}

/** Tokens and workspaces in the system of record. */
export interface AuthStore {
  /** The principal of an active (not revoked, not expired) token with this SHA-256, or null. */
  findActiveToken(hash: string): Promise<Principal | null>;
  /** Records that a token was used now. */
  touchToken(tokenId: string): Promise<void>;
  listTokens(workspaceId: string): Promise<TokenInfo[]>;
  /** Creates a token, with the facts `facts` gives for it in its transaction; `expiresAt` null makes one that never expires. */
  createToken(input: NewToken, facts: FactsOf<TokenFactPayload>): Promise<{ info: TokenInfo; secret: string }>;
  /**
   * Revokes a token of the workspace, with the facts `facts` gives for it in
   * its transaction; false when it has no such token. A token revoked already
   * is true and records nothing.
   */
  revokeToken(workspaceId: string, tokenId: string, facts: FactsOf<TokenFactPayload>): Promise<boolean>;
}

/** Web UI sessions (decision 0029): a cookie's SHA-256 standing for an API token, for a while. */
export interface UiSessionStore {
  /** Records a session of the token; `hash` is the cookie secret's SHA-256. */
  create(input: { hash: string; tokenId: string; expiresAt: Date }): Promise<void>;
  /**
   * The principal of a session with this hash that is not revoked or expired and
   * whose token is not revoked or expired either; null otherwise. `expiresAt`
   * is the earlier of the session's and the token's.
   */
  findActive(hash: string): Promise<Principal | null>;
  /** Ends the session (sign-out); a second call changes nothing. */
  revoke(hash: string): Promise<void>;
}
