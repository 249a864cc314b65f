import type { CausedBy } from '@switchyard/contracts';
import type { SqlRunner } from './sql-pool';

/**
 * Queues a teammate's next turn (id `runId`) unless one is queued already, under
 * its lane's lock (SQL `teammate_wake`, migration teammates; decision 0035). Run
 * it in the transaction that records the delivery's `message.sent` fact. The
 * turn is caused like the delivery (`causedBy`, its depth the turn's). Returns
 * the run's id, or null: a turn was queued already, or the teammate is stopped.
 */
export async function wakeTeammate(tx: SqlRunner, workspaceId: string, sessionId: string, runId: string, causedBy: CausedBy | null): Promise<string | null> {
  const [row] = await tx.$queryRawUnsafe<Array<{ run: string | null }>>(
    `SELECT teammate_wake($1::uuid, $2::uuid, $3::uuid, $4::jsonb, $5::int)::text AS run`,
    workspaceId,
    sessionId,
    runId,
    causedBy === null ? null : JSON.stringify(causedBy),
    causedBy?.depth ?? 0,
  );
  return row?.run ?? null;
}
