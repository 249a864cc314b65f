import type { MailboxEnvelope, TranscriptEntryType } from '@switchyard/contracts';

import type { TranscriptTail } from '../ports';

export type { RunContext, RunContextStore, TranscriptTail } from '../ports';

/** Appends a run's transcript entries, buffered: `flush` writes what was added since the last flush, in order. */
export interface TranscriptWriter {
  add(type: TranscriptEntryType, content: Record<string, unknown>): void;
  flush(): Promise<void>;
  /** Hands over the entries not flushed yet (null when none): whoever takes them writes them. */
  take(): TranscriptTail | null;
}

export interface TranscriptStore {
  /** A writer for the run's session, continuing after `lastSeq` (RunContext.transcriptSeq). */
  open(run: { runId: string; workspaceId: string; sessionId: string; lastSeq: number }): TranscriptWriter;
}

/** One drain of a session's mailbox: the envelopes that parsed, in order, and how many did not. */
export interface MailboxDrain {
  envelopes: MailboxEnvelope[];
  invalid: number;
  /** The position after the last entry read: pass it to the next drain (entries not yet deleted are not read twice). */
  cursor: string | undefined;
  /** Deletes the drained entries; called once they are in the transcript. */
  ack(): Promise<void>;
}

export interface Mailbox {
  /** Entries after `cursor` (from the start when undefined), oldest first. */
  drain(sessionId: string, cursor: string | undefined): Promise<MailboxDrain>;
}

/** An agent's spending per UTC day (the `perDayUsd` budget). */
export interface SpendLedger {
  spentToday(agentId: string): Promise<number>;
  /** Adds to today's spend; returns today's total. */
  add(input: { agentId: string; workspaceId: string; usd: number }): Promise<number>;
}

/** Reads a workspace secret's plaintext; null when there is none of that name. */
export interface SecretReader {
  read(workspaceId: string, name: string): Promise<string | null>;
}
