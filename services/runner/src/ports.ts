import type { ActivationJob, AgentSpec, Fact, RunOrigin, RunOutcome, RunStatus } from '@switchyard/contracts';

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

/** A run as a job that did not start it sees it: its status and, if queued, how many queued runs of its agent are ahead. */
export interface RunPosition extends RunRef {
  /** Queued runs of the agent ahead of this one (`ORDER BY queued_at, id`). */
  ahead: number;
}

/** What a run needs besides its ref and spec: where it came from and its session. */
export interface RunContext {
  origin: RunOrigin;
  sessionId: string;
  /** The activating fact (trigger runs, retries of them); null for manual runs. */
  fact: Fact | null;
  /** The session's last transcript `seq` (0 when it has none): where this run's entries continue. */
  transcriptSeq: number;
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
export type StopReason = 'stopped' | 'agents_paused';

/**
 * What a claim reads of an agent's runs: its oldest queued runs (up to a
 * limit), the ids of its runs `running` since longer than the lost-run age
 * (only those can have lost their slot: a slot's lease outlives its run's
 * start by that much), and the ids of all its runs `running`.
 */
export interface AgentLine {
  candidates: RunRef[];
  running: string[];
  active: string[];
}

/** Which agent's line to read, how much of it, and from what age a running run may be lost. */
export interface LineQuery {
  agentId: string;
  limit: number;
  lostAfterMs: number;
}

/** Which run a lane that ends one goes on with: the agent's oldest queued run, as a LineQuery reads the line. */
export interface NextQuery extends LineQuery {
  /** Runs the agent's other slots hold: their lanes start them. */
  skip: readonly string[];
  /** The only version started (one whose spec the lane knows parses); another ends the hand-off. */
  version: number;
}

/** What finishAndStartNext did: the ending (null: someone else ended the run), the next run it started, and the line. */
export interface HandOff {
  ended: RunRef | null;
  started: StartedRun | null;
  line: AgentLine;
}

/** The runner's reads and conditional writes on the run ledger. */
export interface RunStore {
  /** The run and its place in its agent's line. */
  load(runId: string): Promise<RunPosition | null>;
  /** The agent's line (AgentLine). */
  queuedCandidates(agentId: string, limit: number, lostAfterMs: number): Promise<AgentLine>;
  /** The stored spec of an agent version (raw: parsed by the runner at its boundary); null when absent. */
  specOf(agentId: string, version: number): Promise<unknown>;
  /**
   * `queued → running` with started_at. Returns what its executor needs too
   * (its context, and whether it must stop right away), read in the same
   * statement. When the run is no longer queued (another lane's hand-off
   * started it since the claim) and `instead` is given, the agent's oldest
   * queued run not in `instead.skip` and not being started by someone else
   * right now is started in its place — only when it is of `instead.version`.
   * Null when nothing was started.
   */
  markRunning(runId: string, instead?: StartInstead): Promise<StartedRun | null>;
  /** Moves a run from one of `from` to its ending; null when it was in none of them (someone else ended it). */
  finish(runId: string, from: readonly RunStatus[], ending: RunEnding): Promise<RunRef | null>;
  /**
   * finish(), then — only when the ending applied — the agent's next run
   * started (`queued → running`, read as markRunning reads it), and the line
   * as it was just before (the ending and the started run left out), in one
   * round trip: the lane that ended a run goes on with the next without a
   * claim of its own. The next run is the oldest queued one not in
   * `next.skip` and not being started by someone else right now; none is
   * started when that run is of another version than `next.version`.
   */
  finishAndStartNext(runId: string, from: readonly RunStatus[], ending: RunEnding, next: NextQuery): Promise<HandOff>;
  stopReason(runId: string): Promise<StopReason | null>;
  /** Runs `running` since longer than `olderThanMs` (candidates for the lost-run sweep). */
  runningSince(olderThanMs: number): Promise<Array<{ id: string; agentId: string }>>;
  /** The oldest queued runs of an agent, to wake their jobs when a slot frees. */
  nextQueued(agentId: string, limit: number): Promise<string[]>;
  /** Runs `queued` since longer than `olderThanMs`, oldest first (candidates for the revival sweep). */
  queuedSince(olderThanMs: number): Promise<Array<{ id: string; workspaceId: string; agentId: string }>>;
}

/** What markRunning starts when the claimed run was started by someone else meanwhile. */
export interface StartInstead {
  agentId: string;
  /** Runs other slots hold: their lanes are starting them. */
  skip: readonly string[];
  version: number;
}

/** A held agent slot: renew it while the run executes, release it once the run ended. */
export interface SlotLease {
  /** False when the slot is no longer ours (it expired and maybe someone else took it). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
  /**
   * This very slot names `runId` from now on (a fresh lease), if it still
   * names its run; null when it does not (it lapsed). Unlike AgentSlots.handOver,
   * never another slot: two slots can name one run for a moment (a claim
   * and a hand-off that raced for it), and each lane moves only its own.
   */
  pass(runId: string): Promise<SlotLease | null>;
}

/** What a claim found: the slot it took (if any) and the runs holding the agent's slots now. */
export interface SlotClaim {
  granted: { runId: string; lease: SlotLease } | null;
  /** Every run id in the agent's slots after the claim (the granted one included). */
  held: Set<string>;
}

/** Per-agent execution slots shared by every runner process (Redis keys with a lease). */
export interface AgentSlots {
  /**
   * Atomically: takes a free slot among the first `concurrency` for the first
   * of `candidates` (oldest first) that no slot holds. No grant when every
   * such slot is held or every candidate is.
   */
  claim(agentId: string, concurrency: number, candidates: readonly string[], leaseMs: number): Promise<SlotClaim>;
  /**
   * Atomically: moves the slot that holds `fromRunId` to `toRunId` with a
   * fresh lease, or, when no slot holds `fromRunId` any more (its lease
   * lapsed), takes a free one among the first `concurrency` for `toRunId`.
   * No grant when neither could be done.
   */
  handOver(agentId: string, concurrency: number, fromRunId: string, toRunId: string, leaseMs: number): Promise<SlotClaim>;
  /** The run ids holding any slot of the agent now. */
  holders(agentId: string): Promise<Set<string>>;
}

/** Makes the waiting jobs of some runs eligible now (a slot just freed), or gives a run a job again. */
export interface JobWaker {
  wake(runIds: readonly string[]): Promise<void>;
  /**
   * Gives each run a live job again where it has none (gone, or finished
   * while its run stayed queued); a job that waits, sleeps or runs is left
   * alone. Returns how many jobs it added.
   */
  revive(jobs: readonly ActivationJob[]): Promise<number>;
  /** Removes a run's job if it waits or sleeps (its run was started by another job's lane); else leaves it. */
  withdraw(runId: string): Promise<void>;
}

/** What an executor is given besides the run. */
export interface ExecutionContext {
  /** Aborted when the run must end now (its slot was lost, the process stops). */
  signal: AbortSignal;
  /** Asked between steps: a reason means end the run `cancelled` now. */
  shouldStop(): Promise<StopReason | null>;
}

/**
 * What an executor returns: the run's ending, before it is written. Whatever
 * the run recorded (its transcript) is stored by then.
 */
export type ExecutionResult =
  | { status: 'completed'; outcome: RunOutcome }
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
   * ending would have (its session's mailbox).
   */
  abandoned?(run: RunRef): Promise<void>;
}
