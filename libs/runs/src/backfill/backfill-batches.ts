import { BACKFILL_STOP_REASONS, BackfillBatchSchema, type BackfillBatch, type BackfillRequest } from '@switchyard/contracts';
import type { SqlRunner, SqlTransactions } from '@switchyard/db';
import { insertBackfillRuns } from '../create-runs';
import type { Wake } from '../wake';

/** A batch as the feeder reads it. */
interface BatchRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  agent_version: number;
  created_by: string;
  started: number;
  total: number;
}

/** Batches fed per tick at most. */
const BATCHES_PER_TICK = 50;

/**
 * Backfill batches (decision 0055): created by the gateway with their facts
 * fixed, fed by the matcher a queue cap at a time. Every run is created here
 * (insertBackfillRuns, create-runs.ts) and woken by the caller (RunWaker).
 */
export class BackfillBatches {
  constructor(
    private readonly sql: SqlRunner,
    private readonly db: SqlTransactions,
  ) {}

  /** Records a batch to run (`running`); the feeder starts its runs. */
  async create(tx: SqlRunner, batch: { id: string; workspaceId: string; agentId: string; agentVersion: number; createdBy: string; request: BackfillRequest; seqs: readonly number[] }): Promise<void> {
    await tx.$executeRawUnsafe(
      `INSERT INTO backfill_batches (id, workspace_id, agent_id, agent_version, request, event_seqs, status, created_by, ended_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::int, $5::jsonb, $6::bigint[], $7, $8::uuid, CASE WHEN $7 = 'done' THEN clock_timestamp() END)`,
      batch.id,
      batch.workspaceId,
      batch.agentId,
      batch.agentVersion,
      JSON.stringify(batch.request),
      [...batch.seqs],
      batch.seqs.length === 0 ? 'done' : 'running',
      batch.createdBy,
    );
  }

  /** A batch of the agent, as `GET …/backfills/{batchId}` shows it; null when the agent has no such batch. */
  async get(workspaceId: string, agentId: string, batchId: string): Promise<BackfillBatch | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ batch: unknown }>>(
      `SELECT jsonb_build_object('id', id, 'agentId', agent_id, 'agentVersion', agent_version, 'status', status, 'reason', reason,
                'request', request - 'dryRun', 'runs', cardinality(event_seqs), 'started', started, 'createdBy', created_by,
                'createdAt', to_char(created_at AT TIME ZONE 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                'endedAt', to_char(ended_at AT TIME ZONE 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS batch
         FROM backfill_batches WHERE id = $1::uuid AND workspace_id = $2::uuid AND agent_id = $3::uuid`,
      batchId,
      workspaceId,
      agentId,
    );
    return row ? BackfillBatchSchema.parse(row.batch) : null;
  }

  /** Stops feeding a batch of the agent; false when there is none. The caller stops its runs (the causal stop). */
  async stop(workspaceId: string, agentId: string, batchId: string): Promise<boolean> {
    const changed = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      // A batch already ended keeps its ending; the row is still returned (the stop then stops its live runs).
      `UPDATE backfill_batches SET status = CASE WHEN status = 'running' THEN 'stopped' ELSE status END,
              reason = CASE WHEN status = 'running' THEN $4::text ELSE reason END,
              ended_at = CASE WHEN status = 'running' THEN clock_timestamp() ELSE ended_at END
        WHERE id = $1::uuid AND workspace_id = $2::uuid AND agent_id = $3::uuid RETURNING id::text AS id`,
      batchId,
      workspaceId,
      agentId,
      BACKFILL_STOP_REASONS.stopped,
    );
    return changed.length > 0;
  }

  /** The batch's runs that have not ended, oldest first: what its stop stops. */
  async liveRuns(workspaceId: string, batchId: string): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id::text AS id FROM runs WHERE workspace_id = $1::uuid AND origin_type = 'backfill' AND origin->>'batchId' = $2
          AND status IN ('queued', 'running', 'awaiting_approval', 'awaiting_event') ORDER BY queued_at, id`,
      workspaceId,
      batchId,
    );
    return rows.map((row) => row.id);
  }

  /**
   * Starts the next runs of the running batches: per batch, under its
   * agent's lane lock (claims and other batches of the agent wait), as many
   * as the agent's queue cap leaves room for, unless the agent's spend today
   * reached its `perDayUsd` (it goes on the next day). A batch whose agent was
   * deleted or disabled ends `stopped` with that reason (BACKFILL_STOP_REASONS).
   * Returns the new runs.
   */
  async feed(): Promise<Wake[]> {
    const ids = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id::text AS id FROM backfill_batches WHERE status = 'running' ORDER BY created_at LIMIT $1::int`,
      BATCHES_PER_TICK,
    );
    const woken: Wake[] = [];
    for (const { id } of ids) woken.push(...(await this.db.transaction((tx) => feedOne(tx, id))));
    return woken;
  }
}

async function feedOne(tx: SqlRunner, batchId: string): Promise<Wake[]> {
  const [batch] = await tx.$queryRawUnsafe<BatchRow[]>(
    `SELECT b.id::text AS id, b.workspace_id::text AS workspace_id, b.agent_id::text AS agent_id, b.agent_version, b.created_by::text AS created_by,
            b.started, cardinality(b.event_seqs) AS total
       FROM backfill_batches b WHERE b.id = $1::uuid AND b.status = 'running' FOR UPDATE SKIP LOCKED`,
    batchId,
  );
  if (!batch) return [];
  await tx.$queryRawUnsafe(`SELECT run_lane_lock($1)::text`, `agent:${batch.agent_id}`);
  const [room] = await tx.$queryRawUnsafe<Array<{ free: number; ended: string | null; spent: boolean }>>(
    `SELECT greatest(0, coalesce((v.spec->'flow'->>'queueCap')::int, 100)
              - (SELECT count(*) FROM runs r WHERE r.agent_id = a.id AND r.status = 'queued'))::int AS free,
            CASE WHEN a.deleted_at IS NOT NULL THEN $2::text WHEN NOT a.enabled THEN $3::text END AS ended,
            coalesce((SELECT d.cost_usd FROM agent_spend_daily d WHERE d.agent_id = a.id AND d.day = (now() AT TIME ZONE 'utc')::date), 0)
              >= coalesce((v.spec->'budget'->>'perDayUsd')::numeric, 'Infinity'::numeric) AS spent
       FROM agents a JOIN agent_versions v ON v.agent_id = a.id AND v.version = coalesce(a.pinned_version, a.latest_version)
      WHERE a.id = $1::uuid`,
    batch.agent_id,
    BACKFILL_STOP_REASONS.agentDeleted,
    BACKFILL_STOP_REASONS.agentDisabled,
  );
  if (!room) return [];
  if (room.ended) {
    await tx.$executeRawUnsafe(`UPDATE backfill_batches SET status = 'stopped', reason = $2::text, ended_at = clock_timestamp() WHERE id = $1::uuid`, batch.id, room.ended);
    return [];
  }
  if (room.spent || room.free === 0) return [];
  const next = Math.min(room.free, batch.total - batch.started);
  const [slice] = await tx.$queryRawUnsafe<Array<{ seqs: Array<string | number> }>>(
    `SELECT event_seqs[$2::int + 1 : $2::int + $3::int] AS seqs FROM backfill_batches WHERE id = $1::uuid`,
    batch.id,
    batch.started,
    next,
  );
  const seqs = (slice?.seqs ?? []).map(Number);
  const runIds = await insertBackfillRuns(tx, { id: batch.id, workspaceId: batch.workspace_id, agentId: batch.agent_id, agentVersion: batch.agent_version, createdBy: batch.created_by }, seqs);
  await tx.$executeRawUnsafe(
    `UPDATE backfill_batches SET started = started + $2::int,
            status = CASE WHEN started + $2::int >= cardinality(event_seqs) THEN 'done' ELSE status END,
            ended_at = CASE WHEN started + $2::int >= cardinality(event_seqs) THEN clock_timestamp() ELSE ended_at END
      WHERE id = $1::uuid`,
    batch.id,
    seqs.length,
  );
  return runIds.map((runId) => ({ runId, workspaceId: batch.workspace_id, agentId: batch.agent_id }));
}
