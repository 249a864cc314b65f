import type { ChatMessage } from '../model/model';
import type { Mailbox, TranscriptWriter } from './loop-ports';
import { renderEnvelope } from './render';

/**
 * Moves what waits in the session's mailbox into the conversation, each
 * envelope attributed (render.ts), and into the transcript; the entries are
 * deleted from the mailbox only once the transcript holds them.
 */
export async function drainMailbox(mailbox: Mailbox, sessionId: string, messages: ChatMessage[], transcript: TranscriptWriter): Promise<void> {
  const drain = await mailbox.drain(sessionId);
  for (const envelope of drain.envelopes) {
    const text = renderEnvelope(envelope);
    messages.push({ role: 'user', content: text });
    transcript.add('user', { text, from: { ...envelope.from }, envelopeId: envelope.id });
  }
  if (drain.invalid > 0) {
    transcript.add('notice', { code: 'mailbox_entry_invalid', message: `${drain.invalid} mailbox entries did not parse and were dropped` });
  }
  if (drain.envelopes.length + drain.invalid === 0) return;
  await transcript.flush();
  await drain.ack();
}
