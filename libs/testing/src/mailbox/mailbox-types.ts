import type { MailboxEnvelope } from '@switchyard/contracts';

/**
 * The mailbox port as the fake and the conformance suite see it: the runner's
 * `Mailbox` and `MailboxDrain` (services/runner/src/loop/loop-ports.ts),
 * restated here because a lib does not depend on a service. The runner's
 * tests pass the fake as a `Mailbox`, so the compiler keeps the shapes the same.
 */
export interface ConformingMailboxDrain {
  envelopes: MailboxEnvelope[];
  invalid: number;
  cursor: string | undefined;
  ids: string[];
}

/** The mailbox port (see the note above). */
export interface ConformingMailbox {
  drain(sessionId: string, cursor: string | undefined, remove?: readonly string[]): Promise<ConformingMailboxDrain>;
  closeIfDrained(sessionId: string, cursor: string | undefined, remove?: readonly string[]): Promise<ConformingMailboxDrain | null>;
  closeNow(sessionId: string, cursor: string | undefined, options?: { followUp?: boolean; remove?: readonly string[] }): Promise<ConformingMailboxDrain>;
  remove(sessionId: string, ids: readonly string[]): Promise<void>;
  discard(sessionId: string, envelopeIds: readonly string[]): Promise<void>;
}

/** What a post did (SessionMailbox.post): written, or refused because the mailbox is closed. */
export type MailboxPostOutcome = 'delivered' | 'closed';
