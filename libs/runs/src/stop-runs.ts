import { RUN_CANCEL_REASONS, type RunStatus } from '@switchyard/contracts';
import type { Prisma, PrismaClient, SqlRunner } from '@switchyard/db';
import { closeRunApprovals, lockRunLane } from './approvals/approval-store';
import { sessionLane } from './lanes';
import { closeRunWaits } from './waits/close-waits';

/** A `runs` row as Prisma reads it. */
export type RunRow = Prisma.RunGetPayload<true>;

/** Outcome of a stop; the refusals are expected, so they are values. */
export type StopRunOutcome =
  | { ok: true; row: RunRow; action: 'cancelled' | 'stop_requested'; approvalsClosed: number }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'not_active'; status: RunStatus };

/**
 * Stops one run of the workspace (decision 0028), under its lane's lock, as the runner changes
 * it: a queued run is cancelled at once; a parked run has no runner to cancel it, so it is
 * cancelled now with its pending approvals closed by the platform; a running run is asked to stop
 * at its next step. Its cascade: stop each of {@link activeDescendants} the same way.
 */
export async function stopRun(prisma: PrismaClient, workspaceId: string, id: string, correlationId: string): Promise<StopRunOutcome> {
  return prisma.$transaction(
    async (tx): Promise<StopRunOutcome> => {
      // Under the run's lane lock, as the runner changes it (decision 0009): its status cannot move meanwhile.
      await lockRunLane(tx, id);
      const current = await tx.run.findFirst({ where: { id, workspaceId }, select: { status: true } });
      if (!current) return { ok: false, reason: 'not_found' };
      if (current.status === 'queued') {
        const [cancelled] = await tx.run.updateManyAndReturn({
          where: { id, workspaceId, status: 'queued' },
          data: { status: 'cancelled', reason: RUN_CANCEL_REASONS.stopped, stopRequested: true, endedAt: new Date() },
        });
        return { ok: true, row: cancelled!, action: 'cancelled', approvalsClosed: 0 };
      }
      if (current.status === 'awaiting_approval') {
        // A parked run has no runner to cancel it: cancelled now, its pending approvals closed by the platform (decision 0028).
        const closed = await closeRunApprovals(tx, [id], correlationId);
        const row = await tx.run.findFirstOrThrow({ where: { id, workspaceId } });
        return { ok: true, row, action: 'cancelled', approvalsClosed: closed.length };
      }
      if (current.status === 'awaiting_event') {
        // Parked on a wait (decision 0055): cancelled now, its wait closed, so a later fact resumes nothing.
        await closeRunWaits(tx, [id]);
        const row = await tx.run.findFirstOrThrow({ where: { id, workspaceId } });
        return { ok: true, row, action: 'cancelled', approvalsClosed: 0 };
      }
      if (current.status === 'running') {
        const [requested] = await tx.run.updateManyAndReturn({ where: { id, workspaceId, status: 'running' }, data: { stopRequested: true } });
        return { ok: true, row: requested!, action: 'stop_requested', approvalsClosed: 0 };
      }
      return { ok: false, reason: 'not_active', status: current.status };
    },
    { maxWait: 10_000, timeout: 20_000 },
  );
}

/**
 * Ids of the non-ended runs this run caused, transitively, oldest first: a stop's causal
 * cascade (decision 0028). Through runs.caused_by (a run's facts, and the runs an agent token
 * starts, carry the run's id). A run is always queued after the run that caused it: the
 * queued_at bound keeps each step on the (workspace_id, queued_at) index.
 */
export async function activeDescendants(sql: SqlRunner, workspaceId: string, id: string): Promise<string[]> {
  const rows = await sql.$queryRawUnsafe<Array<{ id: string }>>(
    `WITH RECURSIVE tree(id, queued_at) AS (
       SELECT id, queued_at FROM runs WHERE id = $1::uuid AND workspace_id = $2::uuid
       UNION
       SELECT r.id, r.queued_at FROM tree t
       JOIN runs r ON r.workspace_id = $2::uuid AND r.queued_at >= t.queued_at AND r.caused_by->>'runId' = t.id::text)
     SELECT r.id::text AS id FROM tree JOIN runs r ON r.id = tree.id
     WHERE r.id <> $1::uuid AND r.status IN ('queued', 'running', 'awaiting_approval', 'awaiting_event')
     ORDER BY r.queued_at, r.id`,
    id,
    workspaceId,
  );
  return rows.map((row) => row.id);
}

/** Marks a still-`queued` run `failed` with this reason and error (its wake could not be sent); null when it is no longer queued. */
export async function failQueuedRun(
  db: Pick<PrismaClient, 'run'>,
  workspaceId: string,
  id: string,
  reason: string,
  error: { code: string; message: string },
): Promise<RunRow | null> {
  const [row] = await db.run.updateManyAndReturn({
    where: { id, workspaceId, status: 'queued' },
    data: { status: 'failed', reason, error: error as Prisma.InputJsonValue, endedAt: new Date() },
  });
  return row ?? null;
}

/**
 * A stopped teammate's turns (decision 0035), in the caller's transaction: under the session
 * lane's lock its queued turn is cancelled (no claim starts it meanwhile) and a running turn is
 * asked to stop at its next step.
 */
export async function stopTeammateTurns(tx: SqlRunner, sessionId: string): Promise<void> {
  const lane = sessionLane(sessionId);
  await tx.$queryRawUnsafe('SELECT run_lane_lock($1)::text AS locked', lane);
  await tx.$executeRawUnsafe(
    `UPDATE runs SET status = 'cancelled', reason = $2, stop_requested = true, ended_at = clock_timestamp() WHERE lane = $1 AND status = 'queued'`,
    lane,
    RUN_CANCEL_REASONS.stopped,
  );
  await tx.$executeRawUnsafe(`UPDATE runs SET stop_requested = true WHERE lane = $1 AND status = 'running'`, lane);
}
