import { opsFact } from '@switchyard/core';
import { recordFacts, type SqlRunner, type SqlTransactions } from '@switchyard/db';
import type { OpsFactKind } from '@switchyard/contracts';
import type { DeadLetterGrowth, LaneDepth, LostRunner, ModelFailureRow, OpenBacklog, OpsDraft, OpsStore, RecordOptions } from '../ops/ops-ports';
import { lostRunnersOf, NOTES_SQL, stillHeldSql, type NoteRow } from './sql-lost-runners';

/** The workspace columns every read returns, as facts name it. */
const workspaceOf = (row: { workspace_id: string; slug: string }) => ({ id: row.workspace_id, slug: row.slug });

/** Most dead letters of a window read per tick (a storm of letters is counted up to this). */
const MAX_LETTERS_READ = 10_000;

/** A letter's workspace, read from its message: both stream messages name it near their start, before any payload. */
const LETTER_WORKSPACE = `lower(substring(left(d.message, 1000) from '"workspaceId"\\s*:\\s*"([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})"'))`;

const BACKLOGGED_SQL = `SELECT r.workspace_id::text AS workspace_id, w.slug, r.lane, min(r.agent_id::text) AS agent_id, count(*)::int AS depth,
    min(r.queued_at) AS oldest, (extract(epoch FROM clock_timestamp() - min(r.queued_at)) * 1000)::float8 AS oldest_age_ms
  FROM runs r JOIN workspaces w ON w.id = r.workspace_id
  WHERE r.status = 'queued'
  GROUP BY r.workspace_id, w.slug, r.lane HAVING count(*) >= $1
  ORDER BY depth DESC LIMIT 1000`;

const OPEN_BACKLOGS_SQL = `SELECT m.workspace_id::text AS workspace_id, w.slug, m.key AS lane, m.active_since,
    (SELECT count(*)::int FROM runs r WHERE r.lane = m.key AND r.status = 'queued') AS depth,
    (SELECT r.agent_id::text FROM runs r WHERE r.lane = m.key LIMIT 1) AS agent_id
  FROM ops_fact_marks m JOIN workspaces w ON w.id = m.workspace_id
  WHERE m.kind = $1 AND m.active_since IS NOT NULL`;

const DEAD_LETTERS_SQL = `WITH recent AS (
    SELECT d.id, d.stream, d.group_name, d.entry_id, d.error, d.failed_at, ${LETTER_WORKSPACE} AS workspace_id
      FROM dead_letters d WHERE d.failed_at >= $1 AND d.replayed_at IS NULL ORDER BY d.id DESC LIMIT ${MAX_LETTERS_READ})
  SELECT l.workspace_id, w.slug, l.stream, l.group_name, count(*)::int AS new_letters,
         (array_agg(l.id::text ORDER BY l.id DESC))[1] AS latest_id, (array_agg(l.entry_id ORDER BY l.id DESC))[1] AS latest_entry,
         (array_agg(left(l.error, 500) ORDER BY l.id DESC))[1] AS latest_error, max(l.failed_at) AS latest_at
    FROM recent l JOIN workspaces w ON w.id::text = l.workspace_id
   GROUP BY l.workspace_id, w.slug, l.stream, l.group_name HAVING count(*) >= $2`;

// The predicate repeats the partial index runs_model_failures_idx, so the planner can use it.
const MODEL_FAILURES_SQL = `SELECT r.workspace_id::text AS workspace_id, w.slug, r.agent_id::text AS agent_id, r.reason AS code,
    v.spec #>> '{model,provider}' AS provider, v.spec #>> '{model,baseUrl}' AS base_url,
    count(*)::int AS failures, max(r.ended_at) AS last_at, (array_agg(r.id::text ORDER BY r.ended_at DESC))[1:10] AS run_ids
  FROM runs r JOIN workspaces w ON w.id = r.workspace_id
  LEFT JOIN agent_versions v ON v.agent_id = r.agent_id AND v.version = r.agent_version
  WHERE r.status = 'failed' AND r.reason ~~ 'model_%' AND r.ended_at >= $1 AND r.reason <> 'model_aborted' AND r.origin_type <> 'try'
  GROUP BY r.workspace_id, w.slug, r.agent_id, r.reason, v.spec #>> '{model,provider}', v.spec #>> '{model,baseUrl}'`;

/** The rate limit: the mark moves to `now` only if its last fact is a window old; a row back means record. */
const MARK_SQL = `INSERT INTO ops_fact_marks AS m (kind, workspace_id, key, recorded_at, active_since)
  VALUES ($1, $2::uuid, $3, $4, CASE WHEN $6::boolean THEN $4::timestamptz END)
  ON CONFLICT (kind, workspace_id, key) DO UPDATE
     SET recorded_at = EXCLUDED.recorded_at,
         active_since = CASE WHEN $6::boolean THEN coalesce(m.active_since, EXCLUDED.recorded_at) ELSE m.active_since END
   WHERE m.recorded_at <= EXCLUDED.recorded_at - $5 * interval '1 millisecond'
  RETURNING 1 AS marked`;

/** Closes an open condition; the row lock makes one of two replicas close it. */
const CLOSE_SQL = `WITH open AS (
    SELECT kind FROM ops_fact_marks WHERE kind = $1 AND workspace_id = $2::uuid AND key = $3 AND active_since IS NOT NULL FOR UPDATE)
  UPDATE ops_fact_marks m SET active_since = NULL FROM open WHERE m.kind = open.kind AND m.workspace_id = $2::uuid AND m.key = $3
  RETURNING 1 AS closed`;

/**
 * The ops watcher's store on PostgreSQL (decision 0038). Reads are single
 * statements over indexes (queued runs by status, model failures by a
 * partial index, recent letters by `failed_at`); a record is one transaction:
 * the mark, the fact's outbox row (decision 0024), the notes it settles.
 */
export class SqlOpsStore implements OpsStore {
  constructor(private readonly sql: SqlRunner & SqlTransactions) {}

  async lostRunners(since: Date): Promise<LostRunner[]> {
    const notes = await this.sql.$queryRawUnsafe<NoteRow[]>(NOTES_SQL, since);
    return lostRunnersOf(notes, (workspaceId, runner) => this.sql.$queryRawUnsafe(stillHeldSql, workspaceId, runner));
  }

  async backloggedLanes(threshold: number): Promise<LaneDepth[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ workspace_id: string; slug: string; lane: string; agent_id: string; depth: number; oldest: Date; oldest_age_ms: number }>>(
      BACKLOGGED_SQL,
      threshold,
    );
    return rows.map((row) => ({
      workspace: workspaceOf(row),
      lane: row.lane,
      agentId: row.agent_id,
      depth: row.depth,
      oldestQueuedAt: row.oldest,
      oldestAgeMs: Number(row.oldest_age_ms),
    }));
  }

  async openBacklogs(): Promise<OpenBacklog[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ workspace_id: string; slug: string; lane: string; active_since: Date; depth: number; agent_id: string | null }>>(
      OPEN_BACKLOGS_SQL,
      'platform.queue_backlogged',
    );
    return rows.map((row) => ({ workspace: workspaceOf(row), lane: row.lane, agentId: row.agent_id, depth: row.depth, since: row.active_since }));
  }

  async deadLetterGrowth(since: Date, min: number): Promise<DeadLetterGrowth[]> {
    const rows = await this.sql.$queryRawUnsafe<
      Array<{ workspace_id: string; slug: string; stream: string; group_name: string; new_letters: number; latest_id: string; latest_entry: string; latest_error: string; latest_at: Date }>
    >(DEAD_LETTERS_SQL, since, Math.max(1, min));
    return rows.map((row) => ({
      workspace: workspaceOf(row),
      stream: row.stream,
      group: row.group_name,
      newLetters: row.new_letters,
      latest: { id: row.latest_id, entryId: row.latest_entry, error: row.latest_error, failedAt: row.latest_at },
    }));
  }

  async modelFailures(since: Date): Promise<ModelFailureRow[]> {
    const rows = await this.sql.$queryRawUnsafe<
      Array<{ workspace_id: string; slug: string; agent_id: string; code: string; provider: string | null; base_url: string | null; failures: number; last_at: Date; run_ids: string[] }>
    >(MODEL_FAILURES_SQL, since);
    return rows.map((row) => ({
      workspace: workspaceOf(row),
      agentId: row.agent_id,
      code: row.code,
      provider: row.provider,
      baseUrl: row.base_url,
      failures: row.failures,
      lastAt: row.last_at,
      runIds: row.run_ids,
    }));
  }

  async record(draft: OpsDraft, options: RecordOptions): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const marked = await tx.$queryRawUnsafe<unknown[]>(MARK_SQL, draft.kind, draft.workspace.id, draft.key, options.now, options.windowMs, options.opens ?? false);
      if (marked.length > 0) await this.insertFact(tx, draft, options.now);
      if (options.settles?.length) await tx.$executeRawUnsafe('DELETE FROM run_lease_lapses WHERE id = ANY($1::bigint[])', [...options.settles]);
      return marked.length > 0;
    });
  }

  async recordRecovery(draft: OpsDraft, opened: OpsFactKind, now: Date): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const closed = await tx.$queryRawUnsafe<unknown[]>(CLOSE_SQL, opened, draft.workspace.id, draft.key);
      if (closed.length > 0) await this.insertFact(tx, draft, now);
      return closed.length > 0;
    });
  }

  async prune(before: Date): Promise<number> {
    const marks = await this.sql.$executeRawUnsafe('DELETE FROM ops_fact_marks WHERE active_since IS NULL AND recorded_at < $1', before);
    const notes = await this.sql.$executeRawUnsafe('DELETE FROM run_lease_lapses WHERE noted_at < $1', before);
    return marks + notes;
  }

  private async insertFact(tx: SqlRunner, draft: OpsDraft, now: Date): Promise<void> {
    const fact = opsFact(draft.workspace, draft.kind, draft.subjectId, draft.payload, now);
    await recordFacts(tx, [{ fact, correlationId: `ops:${draft.kind}` }]);
  }
}
