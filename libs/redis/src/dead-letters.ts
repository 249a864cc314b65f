import type { DeadLetter, NewDeadLetter } from '@switchyard/contracts';
import type { Redis } from './connection';
import { toKey } from './keys';
import { MESSAGE_FIELD } from './stream-producer';

/**
 * Where a consumer records the entries it gives up on: a durable store
 * (PostgreSQL, `SqlDeadLetterStore` in `@switchyard/db`), so that a letter
 * outlives Redis. `record` must be idempotent by (stream, group, entryId).
 */
export interface DeadLetterStore {
  record(letter: NewDeadLetter): Promise<void>;
}

/** What replaying needs of the store: read a letter, mark it replayed (false if it already was). */
export interface ReplayableDeadLetters {
  get(id: string): Promise<DeadLetter | null>;
  markReplayed(id: string, entryId: string): Promise<boolean>;
}

/** Key of the hash of entry id → last error, for a group's entries still being retried. */
export function lastErrorsKey(prefix: string, stream: string, group: string): string {
  return toKey(prefix, 'dlq-errors', stream, group);
}

/** The message an entry carried (field `m`), or the JSON of all its fields when it had none. */
export function entryMessage(fields: readonly string[]): string {
  const index = fields.indexOf(MESSAGE_FIELD);
  return index >= 0 && index % 2 === 0 ? (fields[index + 1] ?? '') : JSON.stringify(fields);
}

/** Outcome of one replay. */
export type ReplayResult = { ok: true; entryId: string } | { ok: false; reason: 'not_found' | 'already_replayed' };

/**
 * Puts a dead letter's message back on its source stream (a new entry, so
 * every group sees it again; consumers are idempotent), then marks the letter
 * replayed. Appended first: a crash in between leaves a letter that can be
 * replayed again (a repeat the consumers absorb), never one marked but not
 * sent.
 */
export async function replayDeadLetter(redis: Redis, letters: ReplayableDeadLetters, id: string): Promise<ReplayResult> {
  const letter = await letters.get(id);
  if (!letter) return { ok: false, reason: 'not_found' };
  if (letter.replayedAt !== null) return { ok: false, reason: 'already_replayed' };
  const entryId = (await redis.xadd(letter.stream, '*', MESSAGE_FIELD, letter.message)) as string;
  // Two operators replaying at once both append; only one marks. The repeat is absorbed.
  await letters.markReplayed(id, entryId);
  return { ok: true, entryId };
}
