import type { DeadLetter, NewDeadLetter } from '@switchyard/contracts';
import type { SqlRunner } from './sql-pool';

/** Filters of {@link SqlDeadLetterStore.list}. */
export interface ListDeadLettersOptions {
  /** Only letters of this source stream key. */
  stream?: string;
  /** Also the letters already replayed. @defaultValue false */
  includeReplayed?: boolean;
  /** Most letters returned, oldest first. @defaultValue 1000 */
  limit?: number;
}

/** Letters not replayed yet, per source stream and group. */
export interface DeadLetterCount {
  stream: string;
  group: string;
  count: number;
}

interface DeadLetterRow {
  id: string;
  stream: string;
  group_name: string;
  entry_id: string;
  consumer: string;
  deliveries: number;
  error: string;
  message: string;
  failed_at: Date;
  replayed_at: Date | null;
  replayed_as: string | null;
}

const COLUMNS = 'id::text AS id, stream, group_name, entry_id, consumer, deliveries, error, message, failed_at, replayed_at, replayed_as';

/**
 * The dead letters of every stream consumer, in PostgreSQL (table
 * `dead_letters`): the store `StreamConsumer` records a letter in before it
 * acks the entry in Redis, so a letter survives a Redis restart. Recording is
 * idempotent by (stream, group, entry id): a crash between the record and the
 * ack leaves one letter, not two. Replayed letters stay, marked, for audit.
 */
export class SqlDeadLetterStore {
  constructor(private readonly sql: SqlRunner) {}

  /** Records a letter; a second record of the same entry changes nothing. */
  async record(letter: NewDeadLetter): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `INSERT INTO dead_letters (stream, group_name, entry_id, consumer, deliveries, error, message)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (stream, group_name, entry_id) DO NOTHING`,
      letter.stream,
      letter.group,
      letter.entryId,
      letter.consumer,
      letter.deliveries,
      storable(letter.error.slice(0, 4000)),
      storable(letter.message),
    );
  }

  /** Letters oldest first; by default only those not replayed yet. */
  async list(options: ListDeadLettersOptions = {}): Promise<DeadLetter[]> {
    const rows = await this.sql.$queryRawUnsafe<DeadLetterRow[]>(
      `SELECT ${COLUMNS} FROM dead_letters
        WHERE ($1::text IS NULL OR stream = $1) AND ($2::boolean OR replayed_at IS NULL)
        ORDER BY id LIMIT $3`,
      options.stream ?? null,
      options.includeReplayed ?? false,
      options.limit ?? 1000,
    );
    return rows.map(toDeadLetter);
  }

  /** One letter by id, replayed or not; null when there is none. */
  async get(id: string): Promise<DeadLetter | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const rows = await this.sql.$queryRawUnsafe<DeadLetterRow[]>(`SELECT ${COLUMNS} FROM dead_letters WHERE id = $1::bigint`, id);
    return rows[0] ? toDeadLetter(rows[0]) : null;
  }

  /** Marks a letter replayed as `entryId`; false when it was already marked (or does not exist). */
  async markReplayed(id: string, entryId: string): Promise<boolean> {
    const changed = await this.sql.$executeRawUnsafe(
      `UPDATE dead_letters SET replayed_at = now(), replayed_as = $2 WHERE id = $1::bigint AND replayed_at IS NULL`,
      id,
      entryId,
    );
    return changed === 1;
  }

  /** Letters not replayed, per stream and group (what `/metrics` reports at scrape time). */
  async countWaiting(): Promise<DeadLetterCount[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ stream: string; group_name: string; count: string }>>(
      `SELECT stream, group_name, count(*) AS count FROM dead_letters WHERE replayed_at IS NULL GROUP BY stream, group_name`,
    );
    return rows.map((row) => ({ stream: row.stream, group: row.group_name, count: Number(row.count) }));
  }
}

/** PostgreSQL text cannot hold U+0000: kept visible as the JSON escape instead. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '\\u0000');
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: row.id,
    stream: row.stream,
    group: row.group_name,
    entryId: row.entry_id,
    consumer: row.consumer,
    deliveries: row.deliveries,
    error: row.error,
    message: row.message,
    failedAt: row.failed_at.toISOString(),
    replayedAt: row.replayed_at?.toISOString() ?? null,
    replayedAs: row.replayed_as,
  };
}
