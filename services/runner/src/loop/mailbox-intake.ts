import type { Mailbox, MailboxDrain } from './loop-ports';
import { renderEnvelope } from './render';
import type { RunRecorder } from './run-recorder';

/**
 * Brings what waited in the session's mailbox into the conversation — each
 * envelope attributed (render.ts) — by recording it in the transcript. The
 * drained entries leave the mailbox (`settle`) only after a flush has written
 * them to the transcript, so a message is never gone before it is recorded;
 * one found again (its run's runner died between the two) is in the run's
 * state already and is not recorded twice. It also closes the mailbox when
 * the run ends, so that nothing is accepted that the run will not read — or,
 * for a teammate, so that what it did not read waits for its next turn.
 */
export class MailboxIntake {
  private unsettled: Array<() => Promise<void>> = [];
  private closed = false;
  /** Where the next drain starts: entries drained but not yet deleted are not read twice. */
  cursor: string | undefined;

  constructor(
    private readonly transcript: RunRecorder,
    private readonly mailbox: Mailbox,
    private readonly sessionId: string,
  ) {}

  /** Adds a drain's envelopes as user messages; call `settle` after the next transcript flush. */
  absorb(drain: MailboxDrain): void {
    this.cursor = drain.cursor;
    for (const envelope of drain.envelopes) {
      if (this.transcript.state.envelopeIds.includes(envelope.id)) continue;
      this.transcript.add('user', { text: renderEnvelope(envelope), from: { ...envelope.from }, envelopeId: envelope.id });
    }
    this.invalidNotice(drain);
    this.pending(drain);
  }

  /**
   * The run's last drain: true when nothing arrived since the last one and the
   * mailbox is closed now; false when messages came (absorbed: the run must
   * take another step so that the model sees them).
   */
  async closeIfDrained(): Promise<boolean> {
    const late = await this.mailbox.closeIfDrained(this.sessionId, this.cursor);
    if (late) {
      this.absorb(late);
      return false;
    }
    this.closed = true;
    return true;
  }

  /**
   * Closes the mailbox of a run that ends without reading it again (failed,
   * cancelled, lost), unless closed already: what it never read is recorded
   * in the transcript as a `mailbox_unread` notice, then deleted on `settle`.
   * A teammate's (resident) session keeps it for its next turn instead: true
   * when that turn must be queued now. `followUp` false (the turn took no
   * step: another would end the same way) leaves it for the next post's wake.
   */
  async closeNow(followUp = true): Promise<boolean> {
    if (this.closed) return false;
    const left = await this.mailbox.closeNow(this.sessionId, this.cursor, { followUp });
    this.closed = true;
    if (left.kept) return left.kept === 'waking';
    this.cursor = left.cursor;
    if (left.envelopes.length > 0) {
      this.transcript.add('notice', {
        code: 'mailbox_unread',
        message: `${left.envelopes.length} message(s) arrived after the run's last step and were never read`,
        messages: left.envelopes.map((envelope) => ({ envelopeId: envelope.id, from: { ...envelope.from }, content: envelope.content, sentAt: envelope.sentAt })),
      });
    }
    this.invalidNotice(left);
    this.pending(left);
    return false;
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

  private invalidNotice(drain: MailboxDrain): void {
    if (drain.invalid > 0) {
      this.transcript.add('notice', { code: 'mailbox_entry_invalid', message: `${drain.invalid} mailbox entries did not parse and were dropped` });
    }
  }

  private pending(drain: MailboxDrain): void {
    if (drain.envelopes.length + drain.invalid > 0) this.unsettled.push(drain.ack);
  }
}
