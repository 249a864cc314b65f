import { SessionMailbox, type MailboxRead, type Redis } from '@switchyard/redis';
import type { Mailbox, MailboxDrain } from '../loop/loop-ports';

/**
 * The runner's side of a session's mailbox (SessionMailbox in
 * `@switchyard/redis`): drains after the run's cursor, deletes drained
 * entries once the loop has put them in the transcript (`ack`), and closes
 * the mailbox with the run's last drain.
 */
export class RedisMailbox implements Mailbox {
  private readonly mailbox: SessionMailbox;

  constructor(redis: Redis, prefix: string) {
    this.mailbox = new SessionMailbox(redis, prefix);
  }

  async drain(sessionId: string, cursor: string | undefined): Promise<MailboxDrain> {
    return this.toDrain(sessionId, await this.mailbox.read(sessionId, cursor));
  }

  async closeIfDrained(sessionId: string, cursor: string | undefined): Promise<MailboxDrain | null> {
    const late = await this.mailbox.closeIfDrained(sessionId, cursor);
    return late && this.toDrain(sessionId, late);
  }

  async closeNow(sessionId: string, cursor: string | undefined, options: { followUp?: boolean } = {}): Promise<MailboxDrain> {
    const read = await this.mailbox.closeNow(sessionId, cursor, options);
    return read.kept ? { ...this.toDrain(sessionId, read), kept: read.kept } : this.toDrain(sessionId, read);
  }

  discard(sessionId: string, envelopeIds: readonly string[]): Promise<void> {
    return this.mailbox.discard(sessionId, envelopeIds);
  }

  private toDrain(sessionId: string, read: MailboxRead): MailboxDrain {
    return { envelopes: read.envelopes, invalid: read.invalid, cursor: read.cursor, ack: () => this.mailbox.remove(sessionId, read.ids) };
  }
}
