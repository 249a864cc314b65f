import type { ApprovalKind, Fact, RunCancelReason, RunOrigin, RunOutcome, RunStatus, ToolClass } from '@switchyard/contracts';

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

/** How a run ended, as written to the ledger. */
export interface RunEnding {
  status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;
  reason: string | null;
  outcome: RunOutcome | null;
  error: { code: string; message: string } | null;
}

/** Why a run should stop at its next step: a person asked, or the workspace kill switch is on. */
export type StopReason = RunCancelReason;

/** A run just moved to `running`, with its context and the stop reason as of that moment. */
export interface StartedRun extends RunRef {
  context: RunContext;
  stop: StopReason | null;
  /** Times its lease lapsed and it went back in line (decision 0051); past MAX_RUN_CONTINUATIONS it is not continued. @defaultValue 0 */
  leaseLapses?: number;
}

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

/** Where a run's spend stands against its caps (decision 0032). */
export interface SpendStanding {
  /** The agent's spend today (UTC), for perDayUsd. */
  dayUsd: number;
  /**
   * The run, then each run it was delegated from (nearest first): what each
   * spent, its delegated runs' spend included, and its version's perRunUsd
   * (null when unknown). A delegated run may spend only what all of them have left.
   */
  runs: Array<{ runId: string; spentUsd: number; capUsd: number | null }>;
}

/** Spending per agent and UTC day (`perDayUsd`) and per run with its delegated runs (`perRunUsd`). */
export interface SpendLedger {
  standing(run: { runId: string; agentId: string }): Promise<SpendStanding>;
  /** Adds one model call's cost to the agent's day, the run and each run it was delegated from; returns the standing after it. */
  add(input: { runId: string; agentId: string; workspaceId: string; usd: number }): Promise<SpendStanding>;
}
