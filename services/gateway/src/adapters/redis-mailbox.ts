import type { MailboxEnvelope } from '@switchyard/contracts';
import { SessionMailbox, type MailboxPostResult, type SessionMailboxOptions, type Redis } from '@switchyard/redis';
import type { Mailbox } from '../mailbox-ports';

/** Options of RedisMailbox. */
export interface RedisMailboxOptions extends SessionMailboxOptions {
  redis: Redis;
  /** The installation's key prefix (`REDIS_PREFIX`). */
  prefix: string;
}

/**
 * Sessions' mailboxes on Redis (SessionMailbox in `@switchyard/redis`): a post
 * is written unless the session's run closed its mailbox with its last drain.
 */
export class RedisMailbox implements Mailbox {
  private readonly mailbox: SessionMailbox;

  constructor(options: RedisMailboxOptions) {
    this.mailbox = new SessionMailbox(options.redis, options.prefix, options);
  }

  post(envelope: MailboxEnvelope): Promise<MailboxPostResult> {
    return this.mailbox.post(envelope);
  }

  makeResident(sessionId: string): Promise<void> {
    return this.mailbox.makeResident(sessionId);
  }

  retire(sessionId: string): Promise<void> {
    return this.mailbox.retire(sessionId);
  }

  countSent(runId: string): Promise<number> {
    return this.mailbox.countSent(runId);
  }

  takeDelegation(runId: string, max: number): Promise<boolean> {
    return this.mailbox.takeDelegation(runId, max);
  }

  releaseDelegation(runId: string): Promise<void> {
    return this.mailbox.releaseDelegation(runId);
  }

  postResident(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'> {
    return this.mailbox.postResident(envelope);
  }
}
