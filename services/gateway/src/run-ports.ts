import type { NewRun, ResumedRun, RunWaker } from '@switchyard/runs';
import type { RunOutcome, RunStatus, ToolCallResult, TranscriptEntry } from '@switchyard/contracts';

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
  /** The runs of this backfill batch. */
  batchId?: string;
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

/** A run's transcript (the runner writes it; append-only). */
export interface TranscriptReader {
  /** Entries of the workspace's run with seq > `after`, ascending, at most `limit`. */
  listForRun(workspaceId: string, runId: string, options: { after: number; limit: number }): Promise<TranscriptEntry[]>;
  /** Entries of the workspace's session (every turn of a teammate) with seq > `after`, ascending, at most `limit`. */
  listForSession(workspaceId: string, sessionId: string, options: { after: number; limit: number }): Promise<TranscriptEntry[]>;
}

/**
 * The wake of runs made claimable (RunWaker of libs/runs, the one enqueuer of activation jobs):
 * `wake` for new runs (rejects when the job cannot be added), `wakeOrLeaveToSweep` for a change
 * that stands whatever happens to the wake (a delivered message's teammate turn).
 */
export type ActivationSink = Pick<RunWaker, 'wake' | 'wakeOrLeaveToSweep'>;

/** Wakes the lanes of runs a decision resumed (RunWaker.wakeOrLeaveToSweep of libs/runs). */
export interface RunResumer {
  /** One job per run, its id unique to this resume (`key`). Never rejects: a lost wake is left to the runner's sweep (false). */
  resume(runs: readonly ResumedRun[], key: string): Promise<boolean>;
}
