import type { BackfillRequest } from '@switchyard/contracts';
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
      `INSERT INTO backfill_batches (id, workspace_id, agent_id, agent_version, request, event_seqs, status, created_by)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::int, $5::jsonb, $6::bigint[], $7, $8::uuid)`,
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

  /** Stops feeding a batch of the agent; false when there is none. The caller stops its runs (the causal stop). */
  async stop(workspaceId: string, agentId: string, batchId: string): Promise<boolean> {
    const changed = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `UPDATE backfill_batches SET status = CASE WHEN status = 'running' THEN 'stopped' ELSE status END
        WHERE id = $1::uuid AND workspace_id = $2::uuid AND agent_id = $3::uuid RETURNING id::text AS id`,
      batchId,
      workspaceId,
      agentId,
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
   * reached its `perDayUsd` or it is disabled or deleted. Returns the new runs.
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
  const [room] = await tx.$queryRawUnsafe<Array<{ free: number; live: boolean }>>(
    `SELECT greatest(0, coalesce((v.spec->'flow'->>'queueCap')::int, 100)
              - (SELECT count(*) FROM runs r WHERE r.agent_id = a.id AND r.status = 'queued'))::int AS free,
            (a.enabled AND a.deleted_at IS NULL
              AND coalesce((SELECT d.cost_usd FROM agent_spend_daily d WHERE d.agent_id = a.id AND d.day = (now() AT TIME ZONE 'utc')::date), 0)
                  < coalesce((v.spec->'budget'->>'perDayUsd')::numeric, 'Infinity'::numeric)) AS live
       FROM agents a JOIN agent_versions v ON v.agent_id = a.id AND v.version = coalesce(a.pinned_version, a.latest_version)
      WHERE a.id = $1::uuid`,
    batch.agent_id,
  );
  if (!room?.live || room.free === 0) return [];
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
    `UPDATE backfill_batches SET started = started + $2::int, status = CASE WHEN started + $2::int >= cardinality(event_seqs) THEN 'done' ELSE status END WHERE id = $1::uuid`,
    batch.id,
    seqs.length,
  );
  return runIds.map((runId) => ({ runId, workspaceId: batch.workspace_id, agentId: batch.agent_id }));
}
