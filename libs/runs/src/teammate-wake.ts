import { TeammateOrphanWakeRowSchema, TeammateWakeRowSchema, type AcceptedFact, type CausedBy } from '@switchyard/contracts';
import { OUTBOX_INSERT_SQL, outboxParams, type SqlRunner } from '@switchyard/db';
import { parseRow } from './queue-rows';

/**
 * Queues a teammate's next turn (id `runId`) unless one is queued already, under
 * its lane's lock (SQL `teammate_wake`, libs/runs/sql; decision 0035). Run
 * it in the transaction that records the delivery's `message.sent` fact. The
 * turn is caused like the delivery (`causedBy`, its depth the turn's). Returns
 * the run's id, or null: a turn was queued already, or the teammate is stopped.
 */
export async function wakeTeammate(tx: SqlRunner, workspaceId: string, sessionId: string, runId: string, causedBy: CausedBy | null): Promise<string | null> {
  const [row] = await tx.$queryRawUnsafe<Array<{ run: unknown }>>(
    `SELECT teammate_wake($1::uuid, $2::uuid, $3::uuid, $4::jsonb, $5::int)::text AS run`,
    workspaceId,
    sessionId,
    runId,
    causedBy === null ? null : JSON.stringify(causedBy),
    causedBy?.depth ?? 0,
  );
  return parseRow(TeammateWakeRowSchema, row?.run ?? null, 'teammate_wake');
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
  const [row] = await sql.$queryRawUnsafe<Array<{ run: unknown }>>(
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
  return parseRow(TeammateWakeRowSchema, row?.run ?? null, 'teammate_wake');
}

/**
 * The next turn of the teammate whose turn `run` was (its causation and depth), when that turn
 * left messages unread (SQL `teammate_wake`). Returns the queued turn's id, or null.
 */
export async function wakeTeammateAfter(sql: SqlRunner, run: { id: string; workspaceId: string }, nextRunId: string): Promise<string | null> {
  const [row] = await sql.$queryRawUnsafe<Array<{ run: unknown }>>(
    `SELECT teammate_wake(r.workspace_id, r.session_id, $3::uuid, r.caused_by, r.depth)::text AS run FROM runs r WHERE r.id = $1::uuid AND r.workspace_id = $2::uuid`,
    run.id,
    run.workspaceId,
    nextRunId,
  );
  return parseRow(TeammateWakeRowSchema, row?.run ?? null, 'teammate_wake');
}

/**
 * A teammate's mailbox found open with no turn (SQL `teammate_wake_orphan`, one lane's lock):
 * the queued turn's id, `live` (a turn holds the mailbox) or `gone` (no such live teammate).
 */
export async function wakeOrphanTeammate(sql: SqlRunner, sessionId: string, nextRunId: string): Promise<string> {
  const [row] = await sql.$queryRawUnsafe<Array<{ result: unknown }>>('SELECT teammate_wake_orphan($1::uuid, $2::uuid) AS result', sessionId, nextRunId);
  return parseRow(TeammateOrphanWakeRowSchema, row?.result ?? 'gone', 'teammate_wake_orphan');
}
