import { SessionMailbox, type MailboxRead, type Redis } from '@switchyard/redis';
import type { Mailbox, MailboxDrain } from '../loop/loop-ports';

/**
 * The runner's side of a session's mailbox (SessionMailbox in
 * `@switchyard/redis`): drains after the run's cursor, deletes drained
 * entries once the loop has put them in the transcript (with its next read,
 * or `remove`), and closes the mailbox with the run's last drain.
 */
export class RedisMailbox implements Mailbox {
  private readonly mailbox: SessionMailbox;

  constructor(redis: Redis, prefix: string) {
    this.mailbox = new SessionMailbox(redis, prefix);
  }

  async drain(sessionId: string, cursor: string | undefined, remove: readonly string[] = []): Promise<MailboxDrain> {
    return toDrain(await this.mailbox.read(sessionId, cursor, remove));
  }

  async closeIfDrained(sessionId: string, cursor: string | undefined, remove: readonly string[] = []): Promise<MailboxDrain | null> {
    const late = await this.mailbox.closeIfDrained(sessionId, cursor, remove);
    return late && toDrain(late);
  }

  async closeNow(sessionId: string, cursor: string | undefined, options: { followUp?: boolean; remove?: readonly string[] } = {}): Promise<MailboxDrain> {
    const read = await this.mailbox.closeNow(sessionId, cursor, options);
    return read.kept ? { ...toDrain(read), kept: read.kept } : toDrain(read);
  }

  remove(sessionId: string, ids: readonly string[]): Promise<void> {
    return this.mailbox.remove(sessionId, ids);
  }

  discard(sessionId: string, envelopeIds: readonly string[]): Promise<void> {
    return this.mailbox.discard(sessionId, envelopeIds);
  }
}

function toDrain(read: MailboxRead): MailboxDrain {
  return { envelopes: read.envelopes, invalid: read.invalid, cursor: read.cursor, ids: read.ids };
}
