import type { RunCancelReason } from '@switchyard/contracts';
import type { AgentSpec, ApprovalKind, Fact, RunOrigin, RunOutcome, RunStatus, ToolClass } from '@switchyard/contracts';

/** What the runner needs to know of a run to schedule, execute and announce it. */
export interface RunRef {
  id: string;
  workspaceId: string;
  workspaceSlug: string;
  agentId: string;
  agentVersion: number;
  status: RunStatus;
  eventId: string | null;
  depth: number;
}

/** What a run needs besides its ref and spec: where it came from and its session. */
export interface RunContext {
  origin: RunOrigin;
  sessionId: string;
  /** The activating fact (trigger runs, retries of them); null for manual runs. */
  fact: Fact | null;
  /** The session's last transcript `seq` (0 when it has none): where this run's entries continue. */
  transcriptSeq: number;
  /** The run has transcript entries of its own (it executed before: parked, or its runner died); a new run, a teammate's next turn too, has none to read. */
  continued: boolean;
}

export interface RunContextStore {
  /** Null when the run does not exist (any more). */
  context(run: { id: string; workspaceId: string; workspaceSlug: string }): Promise<RunContext | null>;
}

/** How a run ended, as written to the ledger. */
export interface RunEnding {
  status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;
  reason: string | null;
  outcome: RunOutcome | null;
  error: { code: string; message: string } | null;
}

/** A run just moved to `running`, with its context and the stop reason as of that moment. */
export interface StartedRun extends RunRef {
  context: RunContext;
  stop: StopReason | null;
}

/** Why a run should stop at its next step: a person asked, or the workspace kill switch is on. */
export type StopReason = RunCancelReason;

/** What a claim did: the runs it started for this process, and the lapsed ones it failed `runner_lost`. */
export interface Claimed {
  /** Started for this process (FIFO order): it must execute them. */
  started: StartedRun[];
  /** Runs whose lease had lapsed (their runner died): failed `runner_lost` by this claim. */
  lost: RunRef[];
}

/** What an ending (or a parking) did: whether it applied, and the claim of the lane made with it. */
export interface Ended extends Claimed {
  /** False when the run was no longer this process's (ended by someone else, or its lease lapsed and was failed). */
  ended: boolean;
}

/**
 * The run queue: the `runs` table, shared by every runner process (decision
 * 0009). A queue value acts for one process (its lease owner) with one lease
 * length. Every call is one round trip; claims of one lane are serialized
 * by the lane's lock, so a lane never holds more leases than its concurrency.
 */
export interface RunQueue {
  /** Claims the lane of `runId` (an activation job's run): at most `limit` runs started. */
  claim(runId: string, limit: number): Promise<Claimed>;
  /** Claims a lane by name (the sweep). */
  claimLane(lane: string, limit: number): Promise<Claimed>;
  /** Ends a run this process holds, lease cleared, and claims its lane, in one transaction. */
  end(runId: string, ending: RunEnding, limit: number): Promise<Ended>;
  /** Parks a run this process holds (`awaiting_approval`, no lease: it counts against nothing), and claims its lane. */
  park(runId: string, limit: number): Promise<Ended>;
  /** Puts a parked run back in its lane's line at its original place (`queued`, same `queued_at`); false when it was not parked. */
  resume(runId: string): Promise<boolean>;
  /** Extends the leases of the runs this process holds; returns those it still holds (a run missing lost its lease). */
  renew(runIds: readonly string[]): Promise<Set<string>>;
  /** Lanes that need a claim: queued runs older than `queuedOlderThanMs`, or a lapsed lease. */
  lanesToSweep(queuedOlderThanMs: number): Promise<string[]>;
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

/** One call a person must decide before it runs (or, kind `plan`, a plan-mode run's plan). */
export interface ApprovalRequest {
  kind: ApprovalKind;
  /** The model's id of the call: one approval per run and call. */
  toolCallId: string;
  /** Null for kind `plan`. */
  tool: { server: string; name: string; class: ToolClass; why: string } | null;
  /** The arguments as JSON (secrets redacted), or the plan; cut to MAX_APPROVAL_PREVIEW_CHARS. */
  argumentsPreview: string;
  truncated: boolean;
  /** What the model said with the call, if anything. */
  reason: string | null;
}

/**
 * What asking for approvals did (decision 0026): the run is parked
 * (`awaiting_approval`, its lease and slot given up; the approvals pending),
 * or the workspace's `approvals: "deny"` denied every request at once (the
 * run goes on). A failure to record them throws: the calls fail, never run.
 */
export type ParkOutcome = { type: 'parked' } | { type: 'denied' };

/** Records approval requests and parks a run on them, in one statement (approvals rows, their facts, the queue's park). */
export interface ApprovalParking {
  park(run: RunRef, requests: readonly ApprovalRequest[], timeoutMs: number, limit: number): Promise<{ outcome: ParkOutcome; claim: Claimed | null }>;
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
}

/**
 * What an executor returns: the run's ending, before it is written. Whatever
 * the run recorded (its transcript) is stored by then.
 */
export type ExecutionResult =
  | { status: 'completed'; outcome: RunOutcome }
  /** Parked on approvals (ExecutionContext.park): the run is `awaiting_approval`, nothing to end. */
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
 * `activations` queue (the BullMQ dashboard's pause, decision 0043). Every
 * claim consults it — a job's, the sweep's, an ending's, a park's — so that a
 * paused queue stops runs from starting by any path, not only by its jobs.
 */
export interface RunStartGate {
  /** True while starts are paused; also true when the pause cannot be read (fail closed: the sweep starts what waited once it can). */
  paused(): Promise<boolean>;
}
