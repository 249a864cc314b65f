import type { Client } from 'pg';
import { GROUPS, STREAMS, TERMINAL_RUN_STATUSES } from '@switchyard/contracts';
import { groupCaughtUp, toKey, type Redis } from '@switchyard/redis';
import { apiClient } from '@switchyard/testing';
import type { RunRow, StoredFact } from './rows';

/** Every fact of the workspace, from PostgreSQL. */
export async function readFacts(pg: Client, workspaceId: string): Promise<StoredFact[]> {
  const { rows } = await pg.query<{ id: string; seq: string; kind: string; subject_id: string; idempotency_key: string | null; n: string | null }>(
    `SELECT id::text, seq::text, kind, subject_id, idempotency_key,
            CASE WHEN kind LIKE 'chaos.%' THEN payload->>'n' END AS n
       FROM platform_events WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows.map((row) => ({ id: row.id, seq: Number(row.seq), kind: row.kind, subjectId: row.subject_id, idempotencyKey: row.idempotency_key, n: row.n === null ? null : Number(row.n) }));
}

/** Every run of the workspace, from PostgreSQL. */
export async function readRuns(pg: Client, workspaceId: string): Promise<RunRow[]> {
  const { rows } = await pg.query<{ id: string; agent_id: string; event_id: string | null; origin_type: string; status: string; reason: string | null; started_at: Date | null; ended_at: Date | null; resumes: number }>(
    `SELECT id::text, agent_id::text, event_id::text, origin_type, status::text, reason, started_at, ended_at, resumes FROM runs WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows.map((row) => ({
    id: row.id,
    agentId: row.agent_id,
    eventId: row.event_id,
    originType: row.origin_type,
    status: row.status,
    reason: row.reason,
    startedAt: row.started_at?.getTime() ?? null,
    endedAt: row.ended_at?.getTime() ?? null,
    resumes: row.resumes,
  }));
}

/** The ids of every fact the public API lists (`GET /events?after=`, pages of 1,000), in its order. */
export async function listFactIds(gatewayUrl: string, token: string, workspace: string): Promise<string[]> {
  const api = apiClient(gatewayUrl, token);
  const ids: string[] = [];
  for (let after = 0; ; ) {
    const page = await api<{ events: Array<{ id: string }>; nextCursor: number }>('GET', `/v1/workspaces/${workspace}/events?after=${after}&limit=1000`);
    if (page.status !== 200) throw new Error(`GET /events answered ${page.status}`);
    ids.push(...page.body.events.map((event) => event.id));
    if (page.body.events.length === 0) return ids;
    after = page.body.nextCursor;
  }
}

/** Runs of the workspace not yet ended (queued, running or parked). */
export async function unsettledRuns(pg: Client, workspaceId: string): Promise<number> {
  const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE workspace_id = $1 AND status::text <> ALL($2::text[])`, [workspaceId, TERMINAL_RUN_STATUSES]);
  return rows[0]!.n;
}

/** Whether a consumer group has read and acknowledged everything on its stream. */
export async function groupConsumed(redis: Redis, prefix: string, stream: string, group: string): Promise<boolean> {
  return groupCaughtUp(redis, toKey(prefix, stream), group);
}

/** Whether `ingest` (event-log) and `facts` (matcher) are consumed. */
export async function streamsConsumed(redis: Redis, prefix: string): Promise<boolean> {
  return (await groupConsumed(redis, prefix, STREAMS.ingest, GROUPS.eventLog)) && (await groupConsumed(redis, prefix, STREAMS.facts, GROUPS.matcher));
}

/** Dead letters of every consumer not replayed (they live in PostgreSQL, `dead_letters`). */
export async function deadLetterCount(pg: Client): Promise<number> {
  return Number((await pg.query('SELECT count(*) FROM dead_letters WHERE replayed_at IS NULL')).rows[0].count);
}

/** Facts written with their changes that the event-log's relay has not moved to `ingest` yet. */
export async function outboxPending(pg: Client): Promise<number> {
  return Number((await pg.query('SELECT count(*) FROM fact_outbox')).rows[0].count);
}
