import type { AcceptOptions, IngestResult } from '@switchyard/redis';
import type { ApprovalStore, NewRun, ResumedRun, RunWaker } from '@switchyard/runs';
import type {
  ActivationSkipReason,
  AgentSpec,
  Fact,
  IngestItem,
  MailboxEnvelope,
  Role,
  RunOutcome,
  RunStatus,
  Teammate,
  TokenFactPayload,
  TokenInfo,
  ToolCallResult,
  TranscriptEntry,
  PutSettingsRequest,
  TryFact,
  WorkspaceSettingName,
  WorkspaceSettings,
  WouldHave,
} from '@switchyard/contracts';
import type { DeliveryCommitPort, SealedSecret } from '@switchyard/core';

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

/** Reads facts (the event-log writes them). */
export interface FactReader {
  /** Facts of a workspace with seq > afterSeq (and ≤ uptoSeq), in seq order. */
  listAfter(
    workspace: { id: string; slug: string },
    afterSeq: number,
    options: { kindGlob?: string; limit: number; uptoSeq?: number },
  ): Promise<Fact[]>;
  /** Facts of a workspace with afterSeq < seq < beforeSeq (beforeSeq absent: no upper bound), newest first. */
  listBefore(workspace: { id: string; slug: string }, beforeSeq: number | undefined, options: { kindGlob?: string; limit: number; afterSeq?: number }): Promise<Fact[]>;
  get(workspace: { id: string; slug: string }, id: string): Promise<Fact | null>;
  /** The last seq handed out in the workspace (0 when none). */
  lastSeq(workspaceId: string): Promise<number>;
  /** The seq through which retention purged the workspace's facts (0 when none was): decision 0041. */
  purgedThrough(workspaceId: string): Promise<number>;
  /** Facts already stored under these idempotency keys, by key. */
  findByIdempotencyKeys(workspace: { id: string; slug: string }, keys: readonly string[]): Promise<Map<string, Fact>>;
}

/** Accepting facts into `ingest` (implemented by RedisIngestWriter in @switchyard/redis). */
export interface IngestWriter {
  /**
   * Appends the facts atomically with their idempotency claims; per item,
   * either `accepted` (its own id) or `duplicate` (the id an earlier request
   * claimed the key with).
   */
  accept(items: readonly IngestItem[], options?: AcceptOptions): Promise<IngestResult[]>;
}

/** An agent's spec as stored in a version: `enabled` is agent state, kept on the agent. */
export type StoredAgentSpec = Omit<AgentSpec, 'enabled'>;

/** A live agent: its head row and the spec of its latest version. */
export interface AgentRecord {
  id: string;
  workspaceId: string;
  name: string;
  /** The latest version. */
  version: number;
  /** The version new runs use when set (decision 0046); null: the latest. */
  pinnedVersion: number | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** The latest version's spec. */
  spec: StoredAgentSpec;
}

/** One immutable version of an agent. */
export interface AgentVersionRecord {
  agentId: string;
  version: number;
  createdBy: string;
  createdAt: Date;
  spec: StoredAgentSpec;
}

/** A version as listed: the name it had, not its whole spec. */
export interface AgentVersionSummaryRecord {
  version: number;
  name: string;
  createdBy: string;
  createdAt: Date;
}

/** Outcome of saving a new version; the refusals are expected, so they are values. */
export type AgentUpdateResult =
  /** `versionCreated` is false when the spec was identical to the latest version's (only the flag may have changed). */
  | { ok: true; agent: AgentRecord; versionCreated: boolean; enabledChanged: boolean }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'version_conflict'; current: number }
  | { ok: false; reason: 'name_taken' };

/** A `PUT` of an agent: the new spec, the flag when given, and the version the client read. */
export interface AgentUpdateInput {
  workspaceId: string;
  id: string;
  userId: string;
  spec: StoredAgentSpec;
  enabled?: boolean;
  ifMatch?: number;
}

/** Outcome of reading one version; the refusals are expected, so they are values. */
export type AgentVersionLookup =
  | { ok: true; version: AgentVersionRecord }
  | { ok: false; reason: 'agent_not_found' | 'version_not_found' };

/**
 * The agent registry in the system of record. Every method is scoped by
 * workspace id: another workspace's agent id is simply not found. Deleted
 * agents are not found either, except by the history reads (`listVersions`,
 * `getVersion`, `deletedAt`), which keep them readable for audit.
 */
/** How close agents are to their limits: today's (UTC) spend and the runs waiting. */
export interface AgentUsage {
  spentTodayUsd: number;
  queuedRuns: number;
}

/** Reads agents' usage (the figures `GET /agents` shows beside budget.perDayUsd and flow.queueCap). */
export interface AgentUsageReader {
  /** Usage per agent id of the workspace; an agent with no spend or queue has zeros. */
  usageOf(workspaceId: string, agentIds: readonly string[]): Promise<Map<string, AgentUsage>>;
}

export interface AgentStore {
  /** Creates the agent with version 1. Every write records the facts `facts` gives for its result in its transaction. */
  create(
    input: { workspaceId: string; userId: string; spec: StoredAgentSpec; enabled: boolean },
    facts: FactsOf<AgentRecord>,
  ): Promise<{ ok: true; agent: AgentRecord } | { ok: false; reason: 'name_taken' }>;
  /** Live agents in id order, after the given id. */
  list(workspaceId: string, options: { after?: string; limit: number }): Promise<AgentRecord[]>;
  get(workspaceId: string, id: string): Promise<AgentRecord | null>;
  /**
   * Saves the next version, atomically with the head. With `ifMatch`, only if
   * the latest version is still that one; concurrent saves are serialized so
   * that exactly one of several with the same `ifMatch` succeeds. A spec equal
   * to the latest version's (defaults filled in) makes no version. `enabled`
   * changes the flag only when given.
   */
  update(input: AgentUpdateInput, facts: FactsOf<Extract<AgentUpdateResult, { ok: true }>>): Promise<AgentUpdateResult>;
  /** Sets the flag; `changed` is false when it already had that value. Null when not found. */
  setEnabled(workspaceId: string, id: string, enabled: boolean, facts: FactsOf<{ agent: AgentRecord; changed: boolean }>): Promise<{ agent: AgentRecord; changed: boolean } | null>;
  /**
   * Disables and hides the agent and frees its name; its versions stay for the
   * runs' history. Returns what it was; null when not found.
   */
  delete(workspaceId: string, id: string, facts: FactsOf<{ name: string; version: number }>): Promise<{ name: string; version: number } | null>;
  /** Versions after `after`, ascending, without their specs, of a live or deleted agent; null when the agent is not found. */
  listVersions(workspaceId: string, id: string, options: { after: number; limit: number }): Promise<AgentVersionSummaryRecord[] | null>;
  /** One version of a live or deleted agent. */
  getVersion(workspaceId: string, id: string, version: number): Promise<AgentVersionLookup>;
  /** When the workspace's agent was deleted; null when it is live or unknown. */
  deletedAt(workspaceId: string, id: string): Promise<Date | null>;
}

/** A run as stored: the ledger row with its JSON columns parsed (what it was created with: libs/runs NewRun). */
export interface RunRecord extends NewRun {
  status: RunStatus;
  reason: string | null;
  outcome: RunOutcome | null;
  error: { code: string; message: string } | null;
  /** A stop was asked for; the runner cancels the run at its next step. */
  stopRequested: boolean;
  queuedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** What a new `queued` run is made of (libs/runs creates it, decision 0044). */
export type { NewRun } from '@switchyard/runs';

/** Outcome of a stop; the refusals are expected, so they are values. */
export type StopRunResult =
  | { ok: true; run: RunRecord; action: 'cancelled' | 'stop_requested'; approvalsClosed: number }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'not_active'; status: RunStatus };

/** Which runs a list holds: of one agent, in one status, with at least one tool call of a result. */
export interface RunListFilter {
  agentId?: string;
  status?: RunStatus;
  /** The runs of this agent version (decision 0046). */
  agentVersion?: number;
  /** The runs started by this fact. */
  eventId?: string;
  /** The runs this run caused directly. */
  causedByRunId?: string;
  toolResult?: ToolCallResult;
}

/**
 * The run ledger in the system of record. Every method is scoped by workspace
 * id: another workspace's run id is simply not found.
 */
export interface RunStore {
  /** Runs newest first (by id), older than `after` when given. */
  list(workspaceId: string, options: RunListFilter & { after?: string; limit: number }): Promise<RunRecord[]>;
  get(workspaceId: string, id: string): Promise<RunRecord | null>;
  /** Records a new run in status `queued`. */
  create(run: NewRun): Promise<RunRecord>;
  /**
   * A queued run becomes `cancelled` at once (reason `stopped`); so does a
   * parked one, its pending approvals closed `denied` by the platform
   * (`run_stopped`, their facts recorded with it); a running run gets
   * `stopRequested` and is cancelled by its runner at its next step. Made
   * under the run's lane lock, so the runner cannot move it meanwhile.
   */
  stop(workspaceId: string, id: string, correlationId: string): Promise<StopRunResult>;
  /** Ids of the non-ended runs this run caused, transitively (through `causedBy`), oldest first. */
  activeDescendants(workspaceId: string, id: string): Promise<string[]>;
  /**
   * Marks a still-`queued` run `failed` with this reason and error (its job
   * could not be enqueued). Null when it is no longer queued.
   */
  fail(workspaceId: string, id: string, reason: string, error: { code: string; message: string }): Promise<RunRecord | null>;
}

/**
 * Relays facts just written to the outbox, with every earlier one, before the
 * request that made them answers (decision 0024): the client's next fact then
 * comes after them. Never rejects: what it cannot relay, the event-log's relay moves.
 */
export interface FactFlusher {
  flush(factIds: readonly string[]): Promise<void>;
}

/**
 * The facts a change announces, given its result: the command decides them,
 * the store writes them in the change's transaction (the outbox, decision 0024).
 */
export type FactsOf<T> = (result: T) => IngestItem[];

/** Workspace-wide settings (the kill switch). A workspace without a row has the defaults. */
export interface SettingsStore {
  get(workspaceId: string): Promise<WorkspaceSettings>;
  /**
   * Saves the settings named (the others keep their saved values), with the
   * facts built from the result in its transaction; returns them as stored.
   */
  put(workspaceId: string, settings: PutSettingsRequest, facts: FactsOf<SettingsChange>): Promise<WorkspaceSettings>;
}

/** A save of the settings: what they are after it, and which of them it changed (saves of a workspace are serialized). */
export interface SettingsChange {
  settings: WorkspaceSettings;
  changed: WorkspaceSettingName[];
}

/**
 * The wake of runs made claimable (RunWaker of libs/runs, the one enqueuer of activation jobs):
 * `wake` for new runs (rejects when the job cannot be added), `wakeOrLeaveToSweep` for a change
 * that stands whatever happens to the wake (a delivered message's teammate turn).
 */
export type ActivationSink = Pick<RunWaker, 'wake' | 'wakeOrLeaveToSweep'>;

/** A workspace secret as listed: its name and dates, never its value. */
export interface SecretRecord {
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Workspace secrets in the system of record, sealed: the store only ever
 * sees ciphertext (the routes seal with the SecretBox). Scoped by workspace id.
 */
export interface SecretStore {
  /** Inserts or replaces the sealed value, with the facts `facts` gives in its transaction; `created` says which it was. */
  put(workspaceId: string, name: string, sealed: SealedSecret, facts: FactsOf<SecretRecord>): Promise<{ secret: SecretRecord; created: boolean }>;
  /** The workspace's secrets by name. */
  list(workspaceId: string): Promise<SecretRecord[]>;
  /** Deletes it with the facts `facts` gives (its name) in its transaction; false, recording nothing, when the workspace has no secret of that name. */
  delete(workspaceId: string, name: string, facts: FactsOf<string>): Promise<boolean>;
}

/** A run's transcript (the runner writes it; append-only). */
export interface TranscriptReader {
  /** Entries of the workspace's run with seq > `after`, ascending, at most `limit`. */
  listForRun(workspaceId: string, runId: string, options: { after: number; limit: number }): Promise<TranscriptEntry[]>;
}

/** What steering reads from the system of record: a session (as the runs that have it) and who is writing. */
export interface SteeringStore {
  /** Statuses of the workspace's runs in the session; empty when it has none (unknown, or another workspace's). */
  sessionRunStatuses(workspaceId: string, sessionId: string): Promise<RunStatus[]>;
  /** The display name of a user, to attribute their message; null when unknown. */
  userName(userId: string): Promise<string | null>;
}

/** The sessions' mailboxes (Redis streams the run loop drains). */
export interface Mailbox {
  /**
   * Appends the envelope to its session's mailbox: `delivered`, or `closed`
   * when the session's run already closed it with its last drain (nothing is
   * written: the message would never be read). Rejects when Redis does not answer.
   */
  post(envelope: MailboxEnvelope): Promise<'delivered' | 'closed'>;
  /** A teammate's session: resident (its mailbox outlives each turn) and idle (decision 0035). */
  makeResident(sessionId: string): Promise<void>;
  /** A stopped teammate's session: closed, expiring like any ended run's. */
  retire(sessionId: string): Promise<void>;
  /** Posts to a resident session: `woke` when no turn would read it (the caller queues one), else `delivered`. */
  postResident(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'>;
  /** Counts one more message sent by the run (send_message's per-run cap); returns the count so far. */
  countSent(runId: string): Promise<number>;
}

/** The teammates roster (`teammates`), every call scoped by workspace, and where deliveries to it commit (decision 0035). */
/** A teammate as a delivery needs it: its roster row, without what its turns say. */
export interface DeliveryTarget {
  id: string;
  name: string;
  agentId: string;
  sessionId: string;
  stopped: boolean;
}

export interface TeammateStore extends DeliveryCommitPort {
  list(workspaceId: string): Promise<Teammate[]>;
  /** The roster row by name, read by its unique index alone (a message's path: no runs read). */
  deliveryTarget(workspaceId: string, name: string): Promise<DeliveryTarget | null>;
  get(workspaceId: string, name: string): Promise<Teammate | null>;
  bySession(workspaceId: string, sessionId: string): Promise<Teammate | null>;
  /** Inserts it with its facts, in one transaction; `name_taken` writes nothing. */
  create(
    input: { id: string; workspaceId: string; name: string; agentId: string; sessionId: string; watch: unknown; team: string | null; createdBy: string },
    facts: IngestItem[],
  ): Promise<'created' | 'name_taken'>;
  /** Marks it stopped, cancels its queued turn and flags its running one, with its facts. */
  stop(workspaceId: string, name: string, facts: (teammate: { id: string; sessionId: string }) => IngestItem[]): Promise<'stopped' | 'already' | 'not_found'>;
}

/** A try run to record (decision 0027): the run (`agentVersion` 0 for a draft) and what it runs. */
export interface NewTry {
  run: NewRun;
  /** The saved version run; null for a draft. */
  version: number | null;
  spec: StoredAgentSpec;
  /** A hand-built fact with the id the run sees it by; null otherwise. */
  fact: (TryFact & { id: string }) | null;
  createdBy: string;
}

/** A try as listed: its run, the version it ran (null: a draft) and the exact spec. */
export interface TryRecord {
  run: RunRecord;
  version: number | null;
  spec: StoredAgentSpec;
}

/** Try runs and their records (`runs` + `agent_tries`). Every method is scoped by workspace id. */
export interface TryStore {
  /** The run (`queued`, in a lane of its own) and its try record, in one transaction; a try records no fact. */
  create(input: NewTry): Promise<RunRecord>;
  /** Tries kept under an agent's or draft's id, newest first, older than `after`. */
  list(workspaceId: string, agentId: string, options: { after?: string; limit: number }): Promise<TryRecord[]>;
  /** Whether the workspace has tries kept under this id (a draft's id has no agent). */
  hasTries(workspaceId: string, agentId: string): Promise<boolean>;
  /** The calls a run did not execute (its transcript's `wouldHave` tool entries), in order. */
  wouldHave(workspaceId: string, runId: string): Promise<WouldHave[]>;
}

/** What the matcher made of one fact for one agent, as stored. */
export interface AgentFactState {
  agentId: string;
  name: string;
  /** Its trigger runs for the fact (queued, ended, or `dropped`). */
  runs: Array<{ id: string; status: RunStatus; reason: string | null; agentVersion: number }>;
  /** The guard's skip the matcher recorded, if any. */
  skip: { reason: ActivationSkipReason; agentVersion: number } | null;
  /** The version in force at the fact, with its stored spec and the enabled flag then; null when the agent did not exist yet. */
  inForce: { version: number; spec: unknown; enabled: boolean } | null;
}

/** Reads for "why did my agent (not) run?" (GET /events/{id}/activations). */
export interface ActivationReads {
  /** Every live agent of the workspace (and deleted ones the fact activated), and the matcher's cursor there. */
  activationsOf(workspaceId: string, fact: { id: string; seq: number }): Promise<{ matcherSeq: number; agents: AgentFactState[] }>;
}

/** The approvals of the system of record, as the gateway reads and decides them (ApprovalStore of @switchyard/runs). */
export type ApprovalsPort = Pick<ApprovalStore, 'list' | 'get' | 'decide'>;

/** Wakes the lanes of runs a decision resumed (RunWaker.wakeOrLeaveToSweep of libs/runs). */
export interface RunResumer {
  /** One job per run, its id unique to this resume (`key`). Never rejects: a lost wake is left to the runner's sweep (false). */
  resume(runs: readonly ResumedRun[], key: string): Promise<boolean>;
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
