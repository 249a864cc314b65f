import type { OpsFactKind } from '@switchyard/contracts';
import type { OpsFactPayloads } from '@switchyard/core';

/** A workspace as its facts name it. */
export interface OpsWorkspace {
  id: string;
  slug: string;
}

/** One run of a lost runner, as its fact lists it. */
export interface LostRun {
  runId: string;
  agentId: string;
  lane: string;
  /** Its lease was found lapsed (noted); false: the runner still held it then. */
  lapsed: boolean;
}

/** The lapsed leases of one runner in one workspace, as noted by the lane claims (decision 0038). */
export interface LostRunner {
  workspace: OpsWorkspace;
  /** The runner's name (the runs' `lease_owner`). */
  runner: string;
  /** The notes this comes from: deleted with the fact (or its suppression). */
  noteIds: string[];
  /** When the first of these leases lapsed. */
  lapsedAt: Date;
  /** Its runs of the workspace, lapsed ones first, then those it still holds. */
  runs: LostRun[];
}

/** A lane whose queue is at least the backlog threshold deep. */
export interface LaneDepth {
  workspace: OpsWorkspace;
  lane: string;
  agentId: string;
  depth: number;
  oldestQueuedAt: Date;
  /** By the database's clock. */
  oldestAgeMs: number;
}

/** A lane whose backlog fact was recorded and whose recovery was not, with its depth now. */
export interface OpenBacklog {
  workspace: OpsWorkspace;
  lane: string;
  agentId: string | null;
  depth: number;
  /** When the first backlog fact of this stretch was recorded. */
  since: Date;
}

/** Dead letters of one workspace, stream and group recorded since a moment. */
export interface DeadLetterGrowth {
  workspace: OpsWorkspace;
  stream: string;
  group: string;
  newLetters: number;
  latest: { id: string; entryId: string; error: string; failedAt: Date };
}

/** Runs of one agent failed with one model code since a moment, with where its model is. */
export interface ModelFailureRow {
  workspace: OpsWorkspace;
  agentId: string;
  code: string;
  /** The agent version's `model.provider`; null when its spec is not there to read. */
  provider: string | null;
  /** The agent version's own `model.baseUrl`; null: the operator's endpoint. */
  baseUrl: string | null;
  failures: number;
  lastAt: Date;
  /** Newest first, at most 10. */
  runIds: string[];
}

/** An ops fact to record, if its rate limit allows. */
export interface OpsDraft<K extends OpsFactKind = OpsFactKind> {
  kind: K;
  workspace: OpsWorkspace;
  /** What the rate limit is kept per, with the kind and workspace (a runner's name, a lane, …). */
  key: string;
  subjectId: string;
  payload: OpsFactPayloads[K];
}

/** How a draft is recorded. */
export interface RecordOptions {
  now: Date;
  /** No fact of the draft's kind and key if one was recorded less than this long before `now`. */
  windowMs: number;
  /** The fact opens a condition that a recovery closes (a backlogged lane). @defaultValue false */
  opens?: boolean;
  /** Lease-lapse notes settled by this draft: deleted with it, recorded or not. @defaultValue none */
  settles?: readonly string[];
}

/**
 * What the ops watcher reads and writes (decision 0038). Reads observe the
 * platform's state; each record is one transaction: the rate-limit mark, the
 * fact in the outbox (decision 0024), and the notes it settles.
 */
export interface OpsStore {
  /** Runners whose leases the lane claims found lapsed and noted since `since`, per workspace. */
  lostRunners(since: Date): Promise<LostRunner[]>;
  /** Lanes with at least `threshold` queued runs. */
  backloggedLanes(threshold: number): Promise<LaneDepth[]>;
  /** Lanes whose backlog is open (recorded, not recovered). */
  openBacklogs(): Promise<OpenBacklog[]>;
  /** Dead letters not replayed, recorded since `since`, per workspace (read from the letter), stream and group, at least `min` of them. */
  deadLetterGrowth(since: Date, min: number): Promise<DeadLetterGrowth[]>;
  /** Runs (not tries) failed by a model error (not `model_aborted`) since `since`. */
  modelFailures(since: Date): Promise<ModelFailureRow[]>;
  /** Records the draft's fact unless its kind and key had one within the window; true when recorded. */
  record(draft: OpsDraft, options: RecordOptions): Promise<boolean>;
  /** Records a recovery and closes the open condition of `opened` (same workspace and key); false when none was open. */
  recordRecovery(draft: OpsDraft, opened: OpsFactKind, now: Date): Promise<boolean>;
  /**
   * Forgets the marks of closed conditions last recorded before `before`
   * (they limit nothing any more) and the lease-lapse notes taken before it
   * (news no more: noted while no watcher looked); how many rows went.
   */
  prune(before: Date): Promise<number>;
}
