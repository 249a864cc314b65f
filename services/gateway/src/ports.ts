import type { AcceptedFact, Fact, Role, TokenInfo } from '@switchyard/contracts';

/** Who is calling: resolved from a bearer token or a stream ticket. */
export interface Principal {
  tokenId: string;
  userId: string;
  workspaceId: string;
  workspaceSlug: string;
  role: Role;
}

/** Tokens and workspaces in the system of record. */
export interface AuthStore {
  /** The principal of an active (not revoked) token with this SHA-256, or null. */
  findActiveToken(hash: string): Promise<Principal | null>;
  /** Records that a token was used now. */
  touchToken(tokenId: string): Promise<void>;
  listTokens(workspaceId: string): Promise<TokenInfo[]>;
  createToken(input: { workspaceId: string; userId: string; name: string; role: Role }): Promise<{ info: TokenInfo; secret: string }>;
  /** Revokes a token of the workspace; false when it has no such token. */
  revokeToken(workspaceId: string, tokenId: string): Promise<boolean>;
}

/** Reads facts (the event-log writes them). */
export interface FactReader {
  /** Facts of a workspace with seq > afterSeq (and ≤ uptoSeq), in seq order. */
  listAfter(
    workspace: { id: string; slug: string },
    afterSeq: number,
    options: { kindGlob?: string; limit: number; uptoSeq?: number },
  ): Promise<Fact[]>;
  get(workspace: { id: string; slug: string }, id: string): Promise<Fact | null>;
  /** The last seq handed out in the workspace (0 when none). */
  lastSeq(workspaceId: string): Promise<number>;
  /** Ids of facts already stored under these idempotency keys. */
  findByIdempotencyKeys(workspaceId: string, keys: readonly string[]): Promise<Map<string, string>>;
}

/** One fact to put on `ingest`, with the key that makes a retry resolve to it. */
export interface IngestItem {
  fact: AcceptedFact;
  correlationId: string;
}

/** Accepting facts into `ingest`. */
export interface IngestWriter {
  /**
   * Appends the facts atomically with their idempotency claims; per item,
   * either `accepted` (its own id) or `duplicate` (the id an earlier request
   * claimed the key with).
   */
  accept(items: readonly IngestItem[]): Promise<Array<{ id: string; status: 'accepted' | 'duplicate' }>>;
}
