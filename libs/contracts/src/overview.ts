import { z } from 'zod';

/**
 * The operations overview (`GET /v1/workspaces/{ws}/overview`, decision 0036):
 * what the workspace's runs, queues, spend and parked approvals look like,
 * as figures a page draws. Times are UTC; minutes start on the minute.
 */

/** The window's bounds, in minutes: a minute at least 5, a day at most. */
export const OVERVIEW_WINDOW_MINUTES = { min: 5, max: 1_440, default: 60 } as const;
/** UTC days of spend per agent, today included. */
export const OVERVIEW_SPEND_DAYS = 7;
/** Agents listed with their spend, those spending most today first. */
export const OVERVIEW_MAX_SPEND_AGENTS = 50;
/** Lanes listed with their queue, the longest first. */
export const OVERVIEW_MAX_LANES = 100;
/** Pending approvals listed one by one, the oldest first; `pending` counts them all. */
export const OVERVIEW_MAX_LISTED_APPROVALS = 500;

/** `GET /overview` query. */
export const OverviewQuerySchema = z.strictObject({
  /** Minutes back from now, the current minute included. @defaultValue 60 */
  window: z.coerce.number().int().min(OVERVIEW_WINDOW_MINUTES.min).max(OVERVIEW_WINDOW_MINUTES.max).default(OVERVIEW_WINDOW_MINUTES.default),
});
export type OverviewQuery = z.infer<typeof OverviewQuerySchema>;

const CountSchema = z.number().int().min(0);
const UsdSchema = z.number().min(0);

/** How many runs ended in each terminal status (TERMINAL_RUN_STATUSES), by the `agent.run.<status>` fact that announced it. */
export const RunEndCountsSchema = z.strictObject({
  completed: CountSchema,
  failed: CountSchema,
  cancelled: CountSchema,
  dropped: CountSchema,
});
export type RunEndCounts = z.infer<typeof RunEndCountsSchema>;

/** One minute of the window in which at least one run ended. */
export const OverviewMinuteSchema = RunEndCountsSchema.extend({
  /** The minute's start (UTC). */
  minute: z.iso.datetime(),
  /** The 95th percentile (continuous) of the durations, ms, of the runs that completed or failed in it; null when none ran. */
  p95Ms: z.number().min(0).nullable(),
});
export type OverviewMinute = z.infer<typeof OverviewMinuteSchema>;

/** A lane with runs waiting in it (`agent:<id>`, or `session:<id>` for a teammate). */
export const OverviewLaneSchema = z.strictObject({
  lane: z.string(),
  agentId: z.uuid(),
  agentName: z.string(),
  /** Runs in status `queued`. */
  depth: CountSchema.positive(),
  /** When the one waiting longest was queued. */
  oldestQueuedAt: z.iso.datetime(),
});
export type OverviewLane = z.infer<typeof OverviewLaneSchema>;

/** An agent's spend per UTC day against its `budget.perDayUsd`. */
export const OverviewAgentSpendSchema = z.strictObject({
  agentId: z.uuid(),
  agentName: z.string(),
  /** The latest version's daily budget; null if its spec has none. */
  perDayUsd: UsdSchema.nullable(),
  /** USD per day, in the order of `spend.days`. */
  usd: z.array(UsdSchema),
});
export type OverviewAgentSpend = z.infer<typeof OverviewAgentSpendSchema>;

/** A pending approval, as the age chart needs it. */
export const OverviewPendingApprovalSchema = z.strictObject({
  id: z.uuid(),
  agentId: z.uuid(),
  requestedAt: z.iso.datetime(),
});
export type OverviewPendingApproval = z.infer<typeof OverviewPendingApprovalSchema>;

/** `GET /overview` response. */
export const OverviewResponseSchema = z.strictObject({
  windowMinutes: z.number().int().min(OVERVIEW_WINDOW_MINUTES.min).max(OVERVIEW_WINDOW_MINUTES.max),
  /** The first minute of the window (UTC); the last is the one holding `asOf`. */
  from: z.iso.datetime(),
  /** The database's clock when the figures were read. */
  asOf: z.iso.datetime(),
  /**
   * The runs' counts hold the workspace's facts up to this seq: a client that
   * keeps them live adds the `agent.run.*` facts after it, and none before.
   */
  throughSeq: z.number().int().min(0),
  runs: z.strictObject({
    /** Minutes of the window in which runs ended, oldest first; a minute not listed had none. */
    minutes: z.array(OverviewMinuteSchema),
    totals: RunEndCountsSchema,
    /** failed / (completed + failed) over the window; null when none of either. */
    failureRate: z.number().min(0).max(1).nullable(),
    /** The 95th percentile of the window's run durations, ms (completed and failed runs); null when none. */
    p95Ms: z.number().min(0).nullable(),
  }),
  /** Lanes with queued runs, the longest first (at most OVERVIEW_MAX_LANES). */
  queues: z.array(OverviewLaneSchema),
  /** Runs parked on a wait for a fact (`awaiting_event`, decision 0055), as read at `asOf`. */
  awaitingEvent: CountSchema,
  spend: z.strictObject({
    /** The UTC days (`YYYY-MM-DD`), oldest first; the last is today. */
    days: z.array(z.iso.date()),
    /** The workspace's agents, those spending most today first (at most OVERVIEW_MAX_SPEND_AGENTS). */
    agents: z.array(OverviewAgentSpendSchema),
  }),
  approvals: z.strictObject({
    /** Every pending approval of the workspace. */
    pending: CountSchema,
    /** The oldest pending ones (at most OVERVIEW_MAX_LISTED_APPROVALS), oldest first. */
    oldest: z.array(OverviewPendingApprovalSchema),
  }),
});
export type OverviewResponse = z.infer<typeof OverviewResponseSchema>;
