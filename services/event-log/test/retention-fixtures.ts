import type { Client } from 'pg';
import type { AcceptedFact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { SqlFactStore, type SqlPool } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { SqlRetentionStore } from '../src/adapters/sql-retention-store';
import { partitionNameOf, utcDay } from '../src/retention/partition-weeks';
import { RetentionJob, type RetentionBounds } from '../src/retention/retention-job';

/*
 * Why this exists: retention acts on what months of use leave behind — facts of past days in
 * their day partitions, runs long ended, old transcripts — which a test cannot wait for. These
 * helpers write such rows as their writers would (facts through the event-log's own store, with
 * the `ts` of a past day) and run the real job on the test's clock.
 */

const DAY_MS = 86_400_000;

/** The same moment `days` days before `now`. */
export function daysAgo(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/** The partition (of a UTC week) holding facts of the day `days` before `now`. */
export function partitionName(now: Date, days: number): string {
  return partitionNameOf(utcDay(now, -days));
}

/** Makes the partitions of the past weeks a long-running install would have (the migration made this week's on). */
export async function makePastPartitions(pg: Client, now: Date, fromDaysAgo: number): Promise<void> {
  for (let days = fromDaysAgo; days >= 1; days--) await pg.query('SELECT platform_events_make_partition($1::date)', [utcDay(now, -days)]);
}

/** Whether a table (a partition) exists. */
export async function tableExists(pg: Client, name: string): Promise<boolean> {
  const { rows } = await pg.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [name]);
  return rows[0]!.found;
}

/** A workspace and its seq row, as `create-workspace` leaves them. */
export async function seedWorkspace(pg: Client, slug: string): Promise<{ id: string; slug: string }> {
  const id = newId();
  await pg.query('INSERT INTO workspaces (id, slug) VALUES ($1, $2)', [id, slug]);
  await pg.query('INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)', [id]);
  return { id, slug };
}

/** Stores `count` facts of a workspace accepted at `ts`, through the event-log's store (their seqs come next); returns them with their seqs. */
export async function storeFacts(
  sql: SqlPool,
  workspace: { id: string; slug: string },
  ts: Date,
  count: number,
  keyed = false,
): Promise<Array<{ id: string; seq: number }>> {
  const facts: AcceptedFact[] = Array.from({ length: count }, (_, i) => ({
    id: newId(),
    workspace: workspace.slug,
    workspaceId: workspace.id,
    kind: 'build.finished',
    subject: { type: 'build', id: `b${i}` },
    payload: { i },
    ts: ts.toISOString(),
    ...(keyed ? { idempotencyKey: `k-${newId()}` } : {}),
  }));
  const outcomes = await new SqlFactStore(sql).append(facts);
  return outcomes.map((outcome) => {
    if (outcome.status !== 'inserted') throw new Error(`fact not stored: ${outcome.status}`);
    return { id: outcome.fact.id, seq: outcome.fact.seq };
  });
}

/** The seqs a workspace still holds, in order. */
export async function seqsOf(pg: Client, workspaceId: string): Promise<number[]> {
  const { rows } = await pg.query<{ seq: string }>('SELECT seq FROM platform_events WHERE workspace_id = $1 ORDER BY seq', [workspaceId]);
  return rows.map((row) => Number(row.seq));
}

/** The purge mark of a workspace (0 when none). */
export async function markOf(pg: Client, workspaceId: string): Promise<number> {
  const { rows } = await pg.query<{ seq: string }>('SELECT purged_through_seq AS seq FROM fact_horizons WHERE workspace_id = $1', [workspaceId]);
  return Number(rows[0]?.seq ?? 0);
}

/** Sets a workspace's retention days as a save of its settings leaves them. */
export async function setRetention(pg: Client, workspaceId: string, retention: { factsDays?: number; transcriptsDays?: number }): Promise<void> {
  await pg.query(
    `INSERT INTO workspace_settings (workspace_id, facts_retention_days, transcripts_retention_days) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id) DO UPDATE SET facts_retention_days = EXCLUDED.facts_retention_days, transcripts_retention_days = EXCLUDED.transcripts_retention_days`,
    [workspaceId, retention.factsDays ?? null, retention.transcriptsDays ?? null],
  );
}

/** Generous bounds: a tick finishes what a test arranged. */
export const WIDE: RetentionBounds = { batch: 1000, maxBatches: 50, partitionsAhead: 2, lockTimeoutMs: 2000 };

/** The real job on the test's pool and clock. */
export function retentionJob(sql: SqlPool, now: () => Date, bounds: RetentionBounds = WIDE): RetentionJob {
  return new RetentionJob({ store: new SqlRetentionStore(sql), log: createLogger({ service: 'test', level: 'silent' }), bounds, intervalMs: 60_000, clock: now });
}

export { DAY_MS };
