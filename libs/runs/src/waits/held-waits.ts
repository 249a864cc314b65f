import type { SqlRunner, SqlTransactions } from '@switchyard/db';
import type { ResumedWait } from './wait-book';

/** A parked run nothing holds any more but the kill switch: its wait resolved, none pending, its workspace unpaused. */
const HELD = `r.status = 'awaiting_event'
  AND NOT EXISTS (SELECT 1 FROM run_waits w WHERE w.run_id = r.id AND w.status = 'pending')
  AND NOT coalesce((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false)`;

/**
 * Resumes the runs the kill switch held (decision 0055): `run_wait_resolve`
 * resolved their wait while their workspace was paused and left them
 * `awaiting_event`; once it is unpaused they go back in line, of one
 * workspace or of all — the approvals service's unpause and sweep, as for
 * parked approvals. Each under its lane's lock and conditional on its status,
 * so concurrent callers resume a run once. Returns the runs resumed, with the
 * wait (their wake's key).
 */
export async function resumeHeldWaits(sql: SqlRunner, db: SqlTransactions, workspaceId: string | null, limit: number): Promise<ResumedWait[]> {
  const held = await sql.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT r.id::text AS id FROM runs r WHERE ${HELD} AND ($1::uuid IS NULL OR r.workspace_id = $1::uuid) ORDER BY r.queued_at, r.id LIMIT $2::int`,
    workspaceId,
    limit,
  );
  const resumed: ResumedWait[] = [];
  for (const { id } of held) {
    const [run] = await db.transaction(async (tx) => {
      await tx.$queryRawUnsafe(`SELECT run_lane_lock(lane)::text FROM runs WHERE id = $1::uuid`, id);
      return tx.$queryRawUnsafe<Array<{ workspace_id: string; agent_id: string; wait_id: string }>>(
        `UPDATE runs r SET status = 'queued', resumes = resumes + 1 WHERE r.id = $1::uuid AND ${HELD}
         RETURNING r.workspace_id::text AS workspace_id, r.agent_id::text AS agent_id,
                   (SELECT w.id::text FROM run_waits w WHERE w.run_id = r.id ORDER BY w.resolved_at DESC NULLS LAST LIMIT 1) AS wait_id`,
        id,
      );
    });
    if (run) resumed.push({ runId: id, workspaceId: run.workspace_id, agentId: run.agent_id, waitId: run.wait_id });
  }
  return resumed;
}
