import type { Redis } from './connection';

/** The one field of every stream entry: the JSON of the message. */
export const MESSAGE_FIELD = 'm';

/** Options of appendMessages. */
export interface AppendOptions {
  /** Trim to about this many entries (`MAXLEN ~`); unset never trims. */
  maxLen?: number;
}

/**
 * Appends messages to a stream in one transaction, as JSON in the field `m`,
 * and returns the entry ids in order. A failed XADD rejects the whole call.
 * MULTI/EXEC rather than a bare pipeline: Redis serves a blocked XREADGROUP
 * after each command of a pipeline, so a reader woke for the first entry of
 * a batch and again for the rest; after EXEC it wakes once and reads all.
 */
export async function appendMessages(
  redis: Redis,
  stream: string,
  messages: readonly unknown[],
  options: AppendOptions = {},
): Promise<string[]> {
  if (messages.length === 0) return [];
  const pipeline = redis.multi();
  for (const message of messages) {
    const json = JSON.stringify(message);
    if (options.maxLen === undefined) pipeline.xadd(stream, '*', MESSAGE_FIELD, json);
    else pipeline.xadd(stream, 'MAXLEN', '~', options.maxLen, '*', MESSAGE_FIELD, json);
  }
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, id]) => {
    if (error) throw error;
    return id as string;
  });
}
