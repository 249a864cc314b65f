import type { SqlPool } from '@switchyard/db';
import { partitionNameOf, partitionWeek } from '../retention/partition-weeks';
import type { PartitionDrop, RetentionReckoning, RetentionStore } from '../retention/retention-ports';

/**
 * Each workspace's horizons: facts with a `ts` before `facts_before` are expired, activation
 * skips before `skips_before`, transcripts and tries before `transcripts_before`. The facts
 * horizon falls on a partition's start (a UTC week's Monday): a partition is then wholly expired
 * or wholly kept for a workspace, so no fact a drop will take is deleted by rows first. The
 * others, deleted by rows anyway, fall on a UTC day.
 * Parameters: $1 now, $2 the default facts days, $3 the default transcripts days.
 */
const HORIZONS = `horizons AS (
  SELECT ws.id AS workspace_id,
         date_trunc('week', $1::timestamptz - make_interval(days => coalesce(s.facts_retention_days, $2::int)), 'UTC') AS facts_before,
         date_trunc('day', $1::timestamptz - make_interval(days => coalesce(s.facts_retention_days, $2::int)), 'UTC') AS skips_before,
         date_trunc('day', $1::timestamptz - make_interval(days => coalesce(s.transcripts_retention_days, $3::int)), 'UTC') AS transcripts_before
    FROM workspaces ws LEFT JOIN workspace_settings s ON s.workspace_id = ws.id)`;

// The mark is the seq below the oldest fact still within the horizon (or the last seq, when every
// fact is past it): a fact that arrived late with an old `ts` waits until the facts numbered
// before it expire, so what remains is always one dense run of seqs.
const ADVANCE_SQL = `WITH ${HORIZONS},
  through AS (
    SELECT h.workspace_id,
           coalesce((SELECT min(e.seq) FROM platform_events e WHERE e.workspace_id = h.workspace_id AND e.ts >= h.facts_before) - 1,
                    (SELECT q.last_seq FROM workspace_event_seq q WHERE q.workspace_id = h.workspace_id), 0) AS seq
      FROM horizons h)
  INSERT INTO fact_horizons AS f (workspace_id, purged_through_seq, updated_at)
  SELECT workspace_id, seq, now() FROM through WHERE seq > 0
  ON CONFLICT (workspace_id) DO UPDATE SET purged_through_seq = EXCLUDED.purged_through_seq, updated_at = EXCLUDED.updated_at
   WHERE f.purged_through_seq < EXCLUDED.purged_through_seq`;

const TRIM_KEYS_SQL = `DELETE FROM platform_event_keys k USING (
    SELECT x.workspace_id, x.idempotency_key FROM fact_horizons f
     CROSS JOIN LATERAL (SELECT k2.workspace_id, k2.idempotency_key FROM platform_event_keys k2
                          WHERE k2.workspace_id = f.workspace_id AND k2.seq <= f.purged_through_seq LIMIT $1) x
     LIMIT $1) d
  WHERE k.workspace_id = d.workspace_id AND k.idempotency_key = d.idempotency_key`;

const DELETE_FACT_ROWS_SQL = `DELETE FROM platform_events e USING (
    SELECT x.id, x.ts FROM fact_horizons f
     CROSS JOIN LATERAL (SELECT p.id, p.ts FROM platform_events p
                          WHERE p.workspace_id = f.workspace_id AND p.seq <= f.purged_through_seq ORDER BY p.seq LIMIT $1) x
     LIMIT $1) d
  WHERE e.id = d.id AND e.ts = d.ts`;

// Week partitions that end at or before the newest facts horizon of any workspace: the only ones
// a workspace's purge may have emptied.
const CANDIDATES_SQL = `WITH ${HORIZONS}
  SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'platform_events'::regclass AND c.relname ~ '^platform_events_p[0-9]{8}$'
     AND (to_date(substring(c.relname from 18), 'YYYYMMDD') + 7)::timestamp AT TIME ZONE 'UTC' <= (SELECT max(facts_before) FROM horizons)
   ORDER BY c.relname`;

const SKIPS_SQL = `WITH ${HORIZONS}
  DELETE FROM activation_skips a USING (
    SELECT x.event_id, x.agent_id FROM horizons h
     CROSS JOIN LATERAL (SELECT s.event_id, s.agent_id FROM activation_skips s
                          WHERE s.workspace_id = h.workspace_id AND s.decided_at < h.skips_before LIMIT $4) x
     LIMIT $4) d
  WHERE a.event_id = d.event_id AND a.agent_id = d.agent_id`;

const TRIES_SQL = `WITH ${HORIZONS}
  DELETE FROM agent_tries t USING (
    SELECT x.run_id FROM horizons h
     CROSS JOIN LATERAL (SELECT a.run_id FROM agent_tries a
                          WHERE a.workspace_id = h.workspace_id AND a.created_at < h.transcripts_before
                            AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = a.run_id AND r.ended_at IS NULL)
                          LIMIT $4) x
     LIMIT $4) d
  WHERE t.run_id = d.run_id`;

// A session's transcript goes once its last run ended before the horizon and none is unfinished;
// a live teammate's conversation stays (its compaction bounds it, decision 0035).
const TRANSCRIPTS_SQL = `WITH ${HORIZONS}
  DELETE FROM transcript_entries t USING (
    SELECT x.session_id, x.seq FROM horizons h
     CROSS JOIN LATERAL (SELECT e.session_id, e.seq FROM transcript_entries e
                          WHERE e.workspace_id = h.workspace_id AND e.at < h.transcripts_before
                            AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.workspace_id = h.workspace_id AND r.session_id = e.session_id
                                               AND (r.ended_at IS NULL OR r.ended_at >= h.transcripts_before))
                            AND NOT EXISTS (SELECT 1 FROM teammates m WHERE m.session_id = e.session_id AND m.stopped_at IS NULL)
                          LIMIT $4) x
     LIMIT $4) d
  WHERE t.session_id = d.session_id AND t.seq = d.seq`;

const reckoned = (r: RetentionReckoning) => [r.now.toISOString(), r.defaults.factsDays, r.defaults.transcriptsDays] as const;

/** RetentionStore on PostgreSQL; the partition DDL lives in PL/pgSQL functions of migration `retention`. */
export class SqlRetentionStore implements RetentionStore {
  constructor(private readonly sql: SqlPool) {}

  async ensurePartitions(days: readonly string[], lockTimeoutMs: number): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ existing: string[] }>>(
      `SELECT coalesce(array_agg(c.relname::text), '{}') AS existing FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'platform_events'::regclass`,
    );
    const existing = new Set(row?.existing ?? []);
    let made = 0;
    for (const day of new Set(days.map(partitionWeek))) {
      if (existing.has(partitionNameOf(day))) continue;
      // Its own short transaction, so the lock timeout applies to it alone.
      await this.sql.transaction(async (tx) => {
        await tx.$queryRawUnsafe(`SELECT set_config('lock_timeout', $1, true)`, `${lockTimeoutMs}ms`);
        await tx.$queryRawUnsafe('SELECT platform_events_make_partition($1::date)', day);
      });
      made++;
    }
    return made;
  }

  advanceHorizons(reckoning: RetentionReckoning): Promise<number> {
    return this.sql.$executeRawUnsafe(ADVANCE_SQL, ...reckoned(reckoning));
  }

  trimKeys(batch: number): Promise<number> {
    return this.sql.$executeRawUnsafe(TRIM_KEYS_SQL, batch);
  }

  async expiredPartitionCandidates(reckoning: RetentionReckoning): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ name: string }>>(CANDIDATES_SQL, ...reckoned(reckoning));
    return rows.map((row) => row.name);
  }

  async dropPartition(name: string, lockTimeoutMs: number): Promise<PartitionDrop> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ outcome: PartitionDrop }>>('SELECT platform_events_drop_expired_partition($1, $2) AS outcome', name, lockTimeoutMs);
    return row!.outcome;
  }

  deleteFactRows(batch: number): Promise<number> {
    return this.sql.$executeRawUnsafe(DELETE_FACT_ROWS_SQL, batch);
  }

  deleteActivationSkips(reckoning: RetentionReckoning, batch: number): Promise<number> {
    return this.sql.$executeRawUnsafe(SKIPS_SQL, ...reckoned(reckoning), batch);
  }

  deleteTries(reckoning: RetentionReckoning, batch: number): Promise<number> {
    return this.sql.$executeRawUnsafe(TRIES_SQL, ...reckoned(reckoning), batch);
  }

  deleteTranscripts(reckoning: RetentionReckoning, batch: number): Promise<number> {
    return this.sql.$executeRawUnsafe(TRANSCRIPTS_SQL, ...reckoned(reckoning), batch);
  }
}
