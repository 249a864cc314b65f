import type { ChatMessage } from '../model/model';
import type { MailboxDrain, TranscriptWriter } from './loop-ports';
import { renderEnvelope } from './render';

/**
 * Brings what waited in the session's mailbox into the conversation — each
 * envelope attributed (render.ts) — and into the transcript. The drained
 * entries leave the mailbox (`settle`) only after a flush has written them
 * to the transcript, so a message is never gone before it is recorded.
 */
export class MailboxIntake {
  private unsettled: Array<() => Promise<void>> = [];
  /** Where the next drain starts: entries drained but not yet deleted are not read twice. */
  cursor: string | undefined;

  constructor(
    private readonly messages: ChatMessage[],
    private readonly transcript: TranscriptWriter,
  ) {}

  /** Adds a drain's envelopes as user messages; call `settle` after the next transcript flush. */
  absorb(drain: MailboxDrain): void {
    this.cursor = drain.cursor;
    for (const envelope of drain.envelopes) {
      const text = renderEnvelope(envelope);
      this.messages.push({ role: 'user', content: text });
      this.transcript.add('user', { text, from: { ...envelope.from }, envelopeId: envelope.id });
    }
    if (drain.invalid > 0) {
      this.transcript.add('notice', { code: 'mailbox_entry_invalid', message: `${drain.invalid} mailbox entries did not parse and were dropped` });
    }
    if (drain.envelopes.length + drain.invalid > 0) this.unsettled.push(drain.ack);
  }

  /** True when no drained entry waits to be deleted (nothing depends on the next flush). */
  get settled(): boolean {
    return this.unsettled.length === 0;
  }

  /** Deletes from the mailbox what earlier drains took (they are in the transcript by now). */
  async settle(): Promise<void> {
    const acks = this.unsettled;
    this.unsettled = [];
    for (const ack of acks) await ack();
  }
}
