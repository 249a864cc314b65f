import { MAILBOX_FIELD, mailboxStream, MailboxEnvelopeSchema, type MailboxEnvelope } from '@switchyard/contracts';
import { toKey, type Redis } from '@switchyard/redis';
import type { Mailbox, MailboxDrain } from '../loop/loop-ports';

/** Most envelopes one drain takes; the rest wait for the next step. */
const DRAIN_COUNT = 100;

/**
 * A session's mailbox: the Redis stream `mailbox:{sessionId}`, read by the
 * session's run only (plain XRANGE after the run's cursor, no group). Drained
 * entries are deleted once the loop has put them in the transcript (`ack`);
 * one the loop could not parse is dropped with them and counted.
 */
export class RedisMailbox implements Mailbox {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async drain(sessionId: string, cursor: string | undefined): Promise<MailboxDrain> {
    const key = toKey(this.prefix, ...mailboxStream(sessionId));
    const entries = await this.redis.xrange(key, cursor === undefined ? '-' : `(${cursor}`, '+', 'COUNT', DRAIN_COUNT);
    const envelopes: MailboxEnvelope[] = [];
    let invalid = 0;
    for (const [, fields] of entries) {
      const raw = fieldValue(fields, MAILBOX_FIELD);
      const parsed = raw === undefined ? undefined : MailboxEnvelopeSchema.safeParse(safeJson(raw));
      if (parsed?.success && parsed.data.sessionId === sessionId) envelopes.push(parsed.data);
      else invalid += 1;
    }
    const ids = entries.map(([id]) => id);
    return {
      envelopes,
      invalid,
      cursor: entries.at(-1)?.[0] ?? cursor,
      ack: async () => {
        if (ids.length > 0) await this.redis.xdel(key, ...ids);
      },
    };
  }
}

function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
