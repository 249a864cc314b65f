import { TERMINAL_RUN_STATUSES, type OverviewLane, type OverviewPendingApproval } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { OpsOverviewReader, RunEndMinute, RunEndsRead } from '../ops-overview-ports';

/** The kinds of the facts that announce a run's end, as the partial index `platform_events_run_end_ts_idx` lists them. */
const RUN_END_KINDS = TERMINAL_RUN_STATUSES.map((status) => `'agent.run.${status}'`).join(', ');

/**
 * Run ends per minute from the platform's own run facts (actor `system`, subject a run: a
 * producer may post any kind, but never as the platform), up to the workspace's last seq read
 * in the same snapshot — the seq a live client counts on from (decision 0036). The durations
 * are those of the runs themselves (one probe by primary key per completed or failed run).
 * `GROUPING SETS` gives each minute and the whole window in one pass; the window row always
 * exists, so the bounds come back even when no run ended.
 */
const RUN_ENDS_SQL = `
WITH bounds AS MATERIALIZED (
  SELECT h.through_seq, h.as_of, date_trunc('minute', h.as_of, 'UTC') - ($2::int - 1) * interval '1 minute' AS from_minute
    FROM (SELECT coalesce((SELECT s.last_seq FROM workspace_event_seq s WHERE s.workspace_id = $1::uuid), 0) AS through_seq,
                 clock_timestamp() AS as_of) h
), ends AS (
  SELECT date_trunc('minute', e.ts, 'UTC') AS minute, substr(e.kind, 11) AS status,
         CASE WHEN e.subject_id ~ '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' THEN e.subject_id::uuid END AS run_id
    FROM platform_events e, bounds b
   WHERE e.workspace_id = $1::uuid AND e.kind IN (${RUN_END_KINDS}) AND e.ts >= b.from_minute AND e.seq <= b.through_seq
     AND e.subject_type = 'run' AND e.actor ->> 'type' = 'system'
), grouped AS (
  SELECT f.minute, GROUPING(f.minute) AS whole_window,
         count(*) FILTER (WHERE f.status = 'completed')::int AS completed,
         count(*) FILTER (WHERE f.status = 'failed')::int AS failed,
         count(*) FILTER (WHERE f.status = 'cancelled')::int AS cancelled,
         count(*) FILTER (WHERE f.status = 'dropped')::int AS dropped,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM r.ended_at - r.started_at) * 1000) FILTER (WHERE r.ended_at >= r.started_at) AS p95_ms
    FROM ends f LEFT JOIN runs r ON r.id = CASE WHEN f.status IN ('completed', 'failed') THEN f.run_id END AND r.workspace_id = $1::uuid
   GROUP BY GROUPING SETS ((f.minute), ())
)
SELECT b.through_seq::text AS through_seq, b.as_of, b.from_minute, g.minute, coalesce(g.whole_window, 1) AS whole_window,
       coalesce(g.completed, 0) AS completed, coalesce(g.failed, 0) AS failed, coalesce(g.cancelled, 0) AS cancelled,
       coalesce(g.dropped, 0) AS dropped, g.p95_ms
  FROM bounds b LEFT JOIN grouped g ON true
 ORDER BY g.minute NULLS FIRST`;

interface RunEndsRow {
  through_seq: string;
  as_of: Date;
  from_minute: Date;
  minute: Date | null;
  whole_window: number;
  completed: number;
  failed: number;
  cancelled: number;
  dropped: number;
  p95_ms: number | null;
}

/**
 * Queued runs per lane, agent by agent (LATERAL): each agent's queue is read through its
 * `(agent_id, status, queued_at, id)` index, so other workspaces' backlogs are never scanned.
 */
const QUEUES_SQL = `
SELECT q.lane, a.id::text AS agent_id, a.name AS agent_name, q.depth, q.oldest
  FROM agents a
 CROSS JOIN LATERAL (
   SELECT r.lane, count(*)::int AS depth, min(r.queued_at) AS oldest
     FROM runs r
    WHERE r.agent_id = a.id AND r.status = 'queued' AND r.workspace_id = $1::uuid AND r.origin_type <> 'try'
    GROUP BY r.lane) q
 WHERE a.workspace_id = $1::uuid
 ORDER BY q.depth DESC, q.lane
 LIMIT $2`;

/** The live agents' daily spend (the runner's `agent_spend_daily`, by its primary key) and the perDayUsd of the version their runs use (pinned, else latest: decision 0046). */
const SPEND_SQL = `
SELECT a.id::text AS agent_id, a.name AS agent_name,
       (SELECT (v.spec #>> '{budget,perDayUsd}')::float8 FROM agent_versions v WHERE v.agent_id = a.id AND v.version = COALESCE(a.pinned_version, a.latest_version)) AS per_day_usd,
       coalesce((SELECT json_agg(json_build_object('day', s.day::text, 'usd', s.cost_usd::float8))
                   FROM agent_spend_daily s
                  WHERE s.agent_id = a.id AND s.workspace_id = $1::uuid AND s.day > $2::date - $3::int AND s.day <= $2::date), '[]'::json) AS days
  FROM agents a
 WHERE a.workspace_id = $1::uuid AND a.deleted_at IS NULL
 ORDER BY (SELECT s.cost_usd FROM agent_spend_daily s WHERE s.agent_id = a.id AND s.day = $2::date) DESC NULLS LAST, a.name, a.id
 LIMIT $4`;

/** Pending approvals, oldest first, through `(workspace_id, status, requested_at, id)`; the count is over all of them. */
const PENDING_SQL = `
SELECT id::text AS id, agent_id::text AS agent_id, requested_at, count(*) OVER ()::int AS pending
  FROM approvals
 WHERE workspace_id = $1::uuid AND status = 'pending'
 ORDER BY approvals.requested_at, approvals.id
 LIMIT $2`;

/** The operations overview's reads (decision 0036), in SQL. */
export class PrismaOpsOverviewReader implements OpsOverviewReader {
  constructor(private readonly prisma: PrismaClient) {}

  async runEnds(workspaceId: string, windowMinutes: number): Promise<RunEndsRead> {
    const rows = await this.prisma.$queryRawUnsafe<RunEndsRow[]>(RUN_ENDS_SQL, workspaceId, windowMinutes);
    const first = rows[0]!;
    const counts = (row: RunEndsRow) => ({ completed: row.completed, failed: row.failed, cancelled: row.cancelled, dropped: row.dropped, p95Ms: row.p95_ms });
    const whole = rows.find((row) => row.whole_window === 1) ?? first;
    const minutes: RunEndMinute[] = rows.filter((row) => row.whole_window === 0 && row.minute).map((row) => ({ minute: row.minute!, ...counts(row) }));
    return { throughSeq: Number(first.through_seq), asOf: first.as_of, from: first.from_minute, minutes, totals: counts(whole) };
  }

  async queues(workspaceId: string, limit: number): Promise<OverviewLane[]> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ lane: string; agent_id: string; agent_name: string; depth: number; oldest: Date }>>(QUEUES_SQL, workspaceId, limit);
    return rows.map((row) => ({ lane: row.lane, agentId: row.agent_id, agentName: row.agent_name, depth: row.depth, oldestQueuedAt: row.oldest.toISOString() }));
  }

  async awaitingEvent(workspaceId: string): Promise<number> {
    // Through the runs' (status, queued_at) index: parked runs are few beside the ended ones.
    const [row] = await this.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM runs WHERE status = 'awaiting_event' AND workspace_id = $1::uuid`,
      workspaceId,
    );
    return row?.n ?? 0;
  }

  async spend(workspaceId: string, today: string, days: number, limit: number) {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ agent_id: string; agent_name: string; per_day_usd: number | null; days: Array<{ day: string; usd: number }> }>>(
      SPEND_SQL,
      workspaceId,
      today,
      days,
      limit,
    );
    return rows.map((row) => ({
      agentId: row.agent_id,
      agentName: row.agent_name,
      perDayUsd: row.per_day_usd,
      usdByDay: new Map(row.days.map((entry) => [entry.day, entry.usd])),
    }));
  }

  async pendingApprovals(workspaceId: string, limit: number): Promise<{ pending: number; oldest: OverviewPendingApproval[] }> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; agent_id: string; requested_at: Date; pending: number }>>(PENDING_SQL, workspaceId, limit);
    return {
      pending: rows[0]?.pending ?? 0,
      oldest: rows.map((row) => ({ id: row.id, agentId: row.agent_id, requestedAt: row.requested_at.toISOString() })),
    };
  }
}
