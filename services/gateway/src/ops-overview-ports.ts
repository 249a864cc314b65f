import type { OverviewAgentSpend, OverviewLane, OverviewPendingApproval, RunEndCounts } from '@switchyard/contracts';

/** One minute of the window with the runs that ended in it. */
export interface RunEndMinute extends RunEndCounts {
  /** The minute's start (UTC). */
  minute: Date;
  /** p95 of the durations (ms) of the runs that completed or failed in it; null when none. */
  p95Ms: number | null;
}

/** The runs that ended in a window, counted from their `agent.run.*` facts up to a seq. */
export interface RunEndsRead {
  /** The facts counted are those with seq ≤ this (every one stored when the figures were read). */
  throughSeq: number;
  /** The database's clock at the read. */
  asOf: Date;
  /** The window's first minute (UTC). */
  from: Date;
  /** Minutes with at least one end, oldest first. */
  minutes: RunEndMinute[];
  /** The whole window's counts and p95. */
  totals: RunEndCounts & { p95Ms: number | null };
}

/**
 * The figures of the operations overview (decision 0036), each in a bounded
 * number of indexed queries, every one scoped by workspace id. Try runs are
 * left out everywhere: they record no facts, so a live view never sees them.
 */
export interface OpsOverviewReader {
  /** Run ends per minute over the last `windowMinutes` minutes (the current one included), from the platform's run facts. */
  runEnds(workspaceId: string, windowMinutes: number): Promise<RunEndsRead>;
  /** Lanes with queued runs, the longest first. */
  queues(workspaceId: string, limit: number): Promise<OverviewLane[]>;
  /** How many of the workspace's runs are parked on a wait for a fact (`awaiting_event`). */
  awaitingEvent(workspaceId: string): Promise<number>;
  /** The live agents' spend on each of `days` UTC days up to `today` (`YYYY-MM-DD`), those spending most today first. */
  spend(workspaceId: string, today: string, days: number, limit: number): Promise<Array<Omit<OverviewAgentSpend, 'usd'> & { usdByDay: Map<string, number> }>>;
  /** How many approvals are pending, and the oldest `limit` of them. */
  pendingApprovals(workspaceId: string, limit: number): Promise<{ pending: number; oldest: OverviewPendingApproval[] }>;
}
