import { SessionMailbox, type Redis } from '@switchyard/redis';
import { waitFor } from './wait-for';

/** Run states after which a turn does nothing more. */
const ENDED = ['completed', 'failed', 'cancelled'];

/**
 * Waits until a teammate's session is at rest: every turn ended and its
 * mailbox closed idle (not open, so neither a turn's follow-up nor the
 * runner's sweep owes it a turn). From then on nothing happens until someone
 * posts, so a test that proves "no more turns came" counts them after this
 * rather than after a fixed sleep. Returns the turns' statuses, oldest first.
 */
export async function waitForTeammateAtRest(
  parts: { redis: Redis; prefix: string; query: (sql: string, values: unknown[]) => Promise<{ rows: Array<{ status: string }> }> },
  sessionId: string,
  timeoutMs = 60_000,
): Promise<string[]> {
  const mailbox = new SessionMailbox(parts.redis, parts.prefix);
  return waitFor(
    async () => {
      const statuses = (await parts.query(`SELECT status::text AS status FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows.map((row) => row.status);
      if (!statuses.every((status) => ENDED.includes(status))) return null;
      // Read after the turns: a turn that ends closes its mailbox first, so an idle mailbox seen now is not an old look.
      if (!(await mailbox.isIdle(sessionId))) return null;
      const again = (await parts.query(`SELECT count(*)::int AS status FROM runs WHERE session_id = $1`, [sessionId])).rows[0]?.status;
      return Number(again) === statuses.length ? statuses : null;
    },
    { timeoutMs, intervalMs: 50, what: `session ${sessionId} at rest` },
  );
}

/** A teammate's turn as waitForTurnsEnded returns it (the columns asked for, raw). */
export type SessionTurnRow = Record<string, unknown> & { status: string };

/**
 * Waits until a session has at least `count` turns and every one has ended
 * (a mailbox may still be open: see waitForTeammateAtRest for "nothing more
 * comes"). Returns the turns, oldest first, with `columns` of `runs`.
 */
export async function waitForTurnsEnded<Row extends SessionTurnRow = SessionTurnRow>(
  query: (sql: string, values: unknown[]) => Promise<{ rows: Row[] }>,
  sessionId: string,
  count: number,
  options: { columns?: string; timeoutMs?: number } = {},
): Promise<Row[]> {
  const columns = options.columns ?? 'id::text, status::text';
  return waitFor(
    async () => {
      const turns = (await query(`SELECT ${columns} FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows;
      return turns.length >= count && turns.every((turn) => ENDED.includes(turn.status)) ? turns : null;
    },
    { timeoutMs: options.timeoutMs ?? 90_000, what: `${count} turns ended` },
  );
}
