import type { Redis } from 'ioredis';
import { toKey } from './keys';
import { MESSAGE_FIELD } from './stream-producer';

/** The keys that hold a group's dead letters. */
export interface DeadLetterKeys {
  /** The dead-letter stream. */
  stream: string;
  /** Hash of entry id → last error, for entries still being retried. */
  lastErrors: string;
}

/** Dead-letter keys of a source stream's consumer group, under the installation prefix. */
export function deadLetterKeys(prefix: string, stream: string, group: string): DeadLetterKeys {
  return { stream: toKey(prefix, 'dlq', stream, group), lastErrors: toKey(prefix, 'dlq-errors', stream, group) };
}

/** What a dead letter records about the entry that failed. */
export interface DeadLetterRecord {
  /** The source stream's key. */
  stream: string;
  group: string;
  consumer: string;
  /** The entry id in the source stream. */
  id: string;
  /** The entry's fields as read. */
  fields: string[];
  deliveries: number;
  error: string;
}

/** A dead letter as listed, with its own id in the dead-letter stream. */
export interface DeadLetter extends Omit<DeadLetterRecord, 'fields'> {
  deadLetterId: string;
  /** The original message JSON (field `m`), or null when the entry had none. */
  message: string | null;
  failedAt: string;
}

/**
 * Moves an entry to the dead-letter stream and acks it in the source group in
 * one MULTI, so the entry is never both lost and acked.
 */
export async function deadLetter(redis: Redis, keys: DeadLetterKeys, record: DeadLetterRecord): Promise<void> {
  const index = record.fields.indexOf(MESSAGE_FIELD);
  const message = index >= 0 && index % 2 === 0 ? record.fields[index + 1] ?? '' : JSON.stringify(record.fields);
  await redis
    .multi()
    .xadd(keys.stream, '*',
      'stream', record.stream, 'group', record.group, 'consumer', record.consumer, 'id', record.id,
      'deliveries', String(record.deliveries), 'error', record.error.slice(0, 4000),
      'failedAt', new Date().toISOString(), MESSAGE_FIELD, message)
    .xack(record.stream, record.group, record.id)
    .hdel(keys.lastErrors, record.id)
    .exec();
}

/** The dead letters of a group, oldest first. */
export async function listDeadLetters(redis: Redis, keys: DeadLetterKeys, count = 100): Promise<DeadLetter[]> {
  const entries = await redis.xrange(keys.stream, '-', '+', 'COUNT', count);
  return entries.map(parseDeadLetter);
}

/**
 * Puts a dead letter's message back on its source stream (as a new entry, so
 * every group sees it again; consumers are idempotent) and removes it from
 * the dead-letter stream. Returns the new entry id, or null if there was no
 * such dead letter.
 */
export async function replayDeadLetter(redis: Redis, keys: DeadLetterKeys, deadLetterId: string): Promise<string | null> {
  const [entry] = await redis.xrange(keys.stream, deadLetterId, deadLetterId);
  if (!entry) return null;
  const letter = parseDeadLetter(entry);
  if (letter.message === null || !letter.stream) return null;
  const results = await redis
    .multi()
    .xadd(letter.stream, '*', MESSAGE_FIELD, letter.message)
    .xdel(keys.stream, deadLetterId)
    .exec();
  const [error, id] = results?.[0] ?? [];
  if (error) throw error;
  return id as string;
}

function parseDeadLetter([deadLetterId, fields]: [string, string[]]): DeadLetter {
  const get = (name: string): string | undefined => {
    const i = fields.indexOf(name);
    return i >= 0 && i % 2 === 0 ? fields[i + 1] : undefined;
  };
  return {
    deadLetterId,
    stream: get('stream') ?? '',
    group: get('group') ?? '',
    consumer: get('consumer') ?? '',
    id: get('id') ?? '',
    deliveries: Number(get('deliveries') ?? 0),
    error: get('error') ?? '',
    failedAt: get('failedAt') ?? '',
    message: get(MESSAGE_FIELD) ?? null,
  };
}
