import { MAILBOX_FIELD, mailboxStream, type MailboxEnvelope } from '@switchyard/contracts';
import { toKey, type Redis } from '@switchyard/redis';
import type { Mailbox } from '../ports';

/** Options of RedisMailbox. */
export interface RedisMailboxOptions {
  redis: Redis;
  /** The installation's key prefix (`REDIS_PREFIX`). */
  prefix: string;
  /**
   * Each mailbox stream is trimmed to about this many entries (`MAXLEN ~`), so
   * a session nobody drains cannot grow without bound. @defaultValue 1000
   */
  maxLen?: number;
}

/** Sessions' mailboxes on Redis: one stream per session, one field `envelope` (JSON) per entry. */
export class RedisMailbox implements Mailbox {
  constructor(private readonly options: RedisMailboxOptions) {}

  async post(envelope: MailboxEnvelope): Promise<void> {
    const key = toKey(this.options.prefix, ...mailboxStream(envelope.sessionId));
    await this.options.redis.xadd(key, 'MAXLEN', '~', this.options.maxLen ?? 1000, '*', MAILBOX_FIELD, JSON.stringify(envelope));
  }
}
