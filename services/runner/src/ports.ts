import type { AgentSpec, RunOutcome } from '@switchyard/contracts';
import type { ApprovalRequest, ParkOutcome, RunContext, RunRef, StopReason, WaitRequest } from '@switchyard/runs';
import type { Fact } from '@switchyard/contracts';

// The run queue's port and its values live with the queue, in libs/runs (decision 0044).
export type { ApprovalParking, ApprovalRequest, Claimed, Ended, ParkOutcome, RunContext, RunEnding, RunQueue, RunRef, StartedRun, StopReason } from '@switchyard/runs';

export interface RunContextStore {
  /** Null when the run does not exist (any more). */
  context(run: { id: string; workspaceId: string; workspaceSlug: string }): Promise<RunContext | null>;
}

/** The run ledger reads the runner makes besides the queue. */
export interface RunReads {
  /** The stored spec of an agent version (raw: parsed by the runner at its boundary); null when absent. */
  specOf(agentId: string, version: number): Promise<unknown>;
  stopReason(runId: string): Promise<StopReason | null>;
  /** A try run's record (decision 0027): the spec it runs and its hand-built fact (raw), who tried it and when; null when absent. */
  tryOf(runId: string): Promise<StoredTry | null>;
}

/** What the gateway stored with a try run (`agent_tries`), its JSON not parsed yet. */
export interface StoredTry {
  spec: unknown;
  fact: unknown;
  createdBy: string;
  createdAt: Date;
}

/** What an executor is given besides the run. */
export interface ExecutionContext {
  /** Aborted when the run must end now (its lease was lost, the process stops). */
  signal: AbortSignal;
  /** Asked between steps: a reason means end the run `cancelled` now. */
  shouldStop(): Promise<StopReason | null>;
  /**
   * Asks for approvals of these calls and parks the run on them; the executor
   * then returns `parked`. Absent (a runner without approvals): every ask fails.
   */
  park?(requests: readonly ApprovalRequest[], timeoutMs: number): Promise<ParkOutcome>;
  /**
   * Parks the run on a wait for a fact (decision 0055), unless a fact recorded
   * since the call matches already (`matched`: the run goes on with it). The
   * executor returns `parked` after `parked`. Absent (a try run): waits fail.
   */
  parkOnWait?(wait: WaitRequest): Promise<{ type: 'parked' } | { type: 'matched'; fact: Fact } | { type: 'not_held' }>;
}

/**
 * What an executor returns: the run's ending, before it is written. Whatever
 * the run recorded (its transcript) is stored by then.
 */
export type ExecutionResult =
  | { status: 'completed'; outcome: RunOutcome }
  /** Parked on approvals or a wait (ExecutionContext.park, parkOnWait): the run is `awaiting_approval` or `awaiting_event`, nothing to end. */
  | { status: 'parked' }
  | { status: 'cancelled'; reason: StopReason; outcome: RunOutcome }
  | { status: 'failed'; error: { code: string; message: string }; outcome?: RunOutcome };

/** The run being executed, with its parsed spec. */
export interface ExecutableRun extends RunRef {
  spec: AgentSpec;
  /** Its context when already read (the runner reads it with `queued → running`). */
  context?: RunContext;
}

/**
 * Executes one run of an agent: the port the agent loop (issue 4) plugs into.
 * A run that already took steps (its transcript has entries) is continued
 * after its last one, whichever runner executes it.
 */
export interface Executor {
  execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult>;
  /**
   * Optional: called once a run this executor never finished was failed for
   * it (`runner_lost`: its runner died), to clean up what the run's own
   * ending would have (its session's mailbox). Returns the id of a run it
   * queued (a teammate's next turn, for what the lost one left unread), for
   * the caller to claim.
   */
  abandoned?(run: RunRef): Promise<string | null | void>;
}

/** Finds teammates' mailboxes left open with no turn to read them and queues that turn (decision 0035). */
export interface OrphanWakes {
  /** Returns the runs it queued, for the caller to claim. */
  wakeOrphans(): Promise<string[]>;
}

/**
 * Whether runs may start now: false while an operator paused the
 * `activations` queue (the BullMQ dashboard's pause, decision 0043). The
 * sweep's, an ending's and a park's claims consult it, and a job's claim that
 * waited for a slot (BullMQ hands out no job while the queue is paused), so
 * that a paused queue stops runs from starting by any path, not only by its jobs.
 */
export interface RunStartGate {
  /** True while starts are paused; also true when the pause cannot be read (fail closed: the sweep starts what waited once it can). */
  paused(): Promise<boolean>;
}
