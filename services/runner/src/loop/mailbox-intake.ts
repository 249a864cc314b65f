import type { Mailbox, MailboxDrain } from './loop-ports';
import { renderEnvelope } from './render';
import type { RunRecorder } from './run-recorder';

/**
 * Brings what waited in the session's mailbox into the conversation — each
 * envelope attributed (render.ts) — by recording it in the transcript. The
 * drained entries leave the mailbox only after a flush has written them to
 * the transcript: the next read or close deletes them in the same call
 * (`recorded` marks a flush done; `settle` deletes at teardown, when no read
 * follows), so a message is never gone before it is recorded; one found
 * again (its run's runner died between the two) is in the run's state
 * already and is not recorded twice. It also closes the mailbox when the run
 * ends, so that nothing is accepted that the run will not read — or, for a
 * teammate, so that what it did not read waits for its next turn.
 */
export class MailboxIntake {
  /** Entries absorbed, waiting for a flush to record them. */
  private drained: string[] = [];
  /** Entries the transcript holds, deleted with the next read. */
  private recordedIds: string[] = [];
  private closed = false;
  /** Where the next drain starts: entries drained but not yet deleted are not read twice. */
  cursor: string | undefined;

  constructor(
    private readonly transcript: RunRecorder,
    private readonly mailbox: Mailbox,
    private readonly sessionId: string,
  ) {}

  /** The next drain after the cursor; it deletes what earlier flushes recorded. Pass it to `absorb`. */
  async read(): Promise<MailboxDrain> {
    return this.removing((remove) => this.mailbox.drain(this.sessionId, this.cursor, remove));
  }

  /** Adds a drain's envelopes as user messages; they leave the mailbox after the next flush (`recorded`). */
  absorb(drain: MailboxDrain): void {
    this.cursor = drain.cursor;
    for (const envelope of drain.envelopes) {
      if (this.transcript.state.envelopeIds.includes(envelope.id)) continue;
      this.transcript.add('user', { text: renderEnvelope(envelope), from: { ...envelope.from }, envelopeId: envelope.id });
    }
    this.invalidNotice(drain);
    this.drained.push(...drain.ids);
  }

  /** A flush that began after the last absorb has completed: what was drained may leave the mailbox. */
  recorded(): void {
    this.recordedIds.push(...this.drained);
    this.drained = [];
  }

  /**
   * The run's last drain: true when nothing arrived since the last one and the
   * mailbox is closed now; false when messages came (absorbed: the run must
   * take another step so that the model sees them).
   */
  async closeIfDrained(): Promise<boolean> {
    const late = await this.removing((remove) => this.mailbox.closeIfDrained(this.sessionId, this.cursor, remove));
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
    const left = await this.removing((remove) => this.mailbox.closeNow(this.sessionId, this.cursor, { followUp, remove }));
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
    this.drained.push(...left.ids);
    return false;
  }

  /** True when nothing drained waits for a flush (the last drain need not wait for one). */
  get settled(): boolean {
    return this.drained.length === 0;
  }

  /** After a flush, with no read to come: deletes what every drain took. */
  async settle(): Promise<void> {
    this.recorded();
    const ids = this.recordedIds;
    if (ids.length === 0) return;
    await this.mailbox.remove(this.sessionId, ids);
    this.recordedIds = [];
  }

  /** A read that deletes the recorded entries as it goes; they are forgotten once it answered. */
  private async removing<T>(read: (remove: readonly string[]) => Promise<T>): Promise<T> {
    const remove = [...this.recordedIds];
    const result = await read(remove);
    this.recordedIds = this.recordedIds.filter((id) => !remove.includes(id));
    return result;
  }

  private invalidNotice(drain: MailboxDrain): void {
    if (drain.invalid > 0) {
      this.transcript.add('notice', { code: 'mailbox_entry_invalid', message: `${drain.invalid} mailbox entries did not parse and were dropped` });
    }
  }
}
