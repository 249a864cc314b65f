import type { AcceptedFact, CausedBy } from '@switchyard/contracts';
import { OUTBOX_INSERT_SQL, outboxParams } from './fact-outbox';
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

/**
 * A delivery's commit in one statement (decision 0035): its facts into the
 * outbox and, when its post woke the teammate, the next turn (`teammate_wake`,
 * whose queued fact the runs trigger records). One statement, not an
 * interactive transaction: the lane's lock is held inside PostgreSQL only,
 * never across the caller's event loop, so the runner's claims and endings of
 * that lane do not wait on the poster. Returns the queued turn's id, or null.
 */
export async function commitTeammateDelivery(
  sql: SqlRunner,
  delivery: { workspaceId: string; sessionId: string; wake: { runId: string; causedBy: CausedBy | null } | null; facts: ReadonlyArray<{ fact: AcceptedFact; correlationId: string }> },
): Promise<string | null> {
  const { wake } = delivery;
  const [row] = await sql.$queryRawUnsafe<Array<{ run: string | null }>>(
    // A data-modifying CTE runs whether or not the query reads it.
    `WITH facts AS (${OUTBOX_INSERT_SQL})
     SELECT CASE WHEN $14::uuid IS NULL THEN NULL ELSE teammate_wake($12::uuid, $13::uuid, $14::uuid, $15::jsonb, $16::int) END::text AS run`,
    ...outboxParams(delivery.facts),
    delivery.workspaceId,
    delivery.sessionId,
    wake?.runId ?? null,
    wake?.causedBy ? JSON.stringify(wake.causedBy) : null,
    wake?.causedBy?.depth ?? 0,
  );
  return row?.run ?? null;
}
