import type { AgentMessageSender, ApprovalDecider, MailboxEnvelope, TranscriptEntryType, WaitForEventResult } from '@switchyard/contracts';

export type { RunContext, RunContextStore } from '../ports';

/** Appends a run's transcript entries, buffered: `flush` writes what was added since the last flush, in order. */
export interface TranscriptWriter {
  /** Buffers an entry; returns the `seq` it will have. */
  add(type: TranscriptEntryType, content: Record<string, unknown>): number;
  flush(): Promise<void>;
}

/** A transcript entry as stored, its content not parsed yet. */
export interface StoredEntry {
  seq: number;
  type: string;
  content: unknown;
}

export interface TranscriptStore {
  /** A writer for the run's session, continuing after `lastSeq` (RunContext.transcriptSeq); `followed`: someone watches it live (a crafting turn), each flush is announced. */
  open(run: { runId: string; workspaceId: string; sessionId: string; lastSeq: number; followed?: boolean }): TranscriptWriter;
  /** The run's own entries (not its session's other runs'), in `seq` order: what its state is rebuilt from. */
  entries(run: { runId: string; workspaceId: string }): Promise<StoredEntry[]>;
}

/** One drain of a session's mailbox: the envelopes that parsed, in order, and how many did not. */
export interface MailboxDrain {
  envelopes: MailboxEnvelope[];
  invalid: number;
  /** The position after the last entry read: pass it to the next drain (entries not yet deleted are not read twice). */
  cursor: string | undefined;
  /** The entries read, envelopes and invalid ones: to delete once they are in the transcript (`remove` of a later call). */
  ids: string[];
  /**
   * Set by a forced close of a resident (teammate) session with unread
   * entries: they stay in the mailbox for its next turn — `waking`: the
   * mailbox is open and that turn must be queued; `idle`: the next post wakes it.
   */
  kept?: 'waking' | 'idle';
}

/**
 * A session's mailbox as its run sees it (SessionMailbox in `@switchyard/redis`).
 * Each read first deletes `remove`: entries of earlier drains that the run's
 * transcript holds now, so that a delete costs no call of its own.
 */
export interface Mailbox {
  /** Entries after `cursor` (from the start when undefined), oldest first. */
  drain(sessionId: string, cursor: string | undefined, remove?: readonly string[]): Promise<MailboxDrain>;
  /**
   * The run's last drain, atomic with the close: null when nothing arrived
   * after `cursor` and the mailbox is closed now (later posts are refused);
   * otherwise what arrived, the mailbox left open.
   */
  closeIfDrained(sessionId: string, cursor: string | undefined, remove?: readonly string[]): Promise<MailboxDrain | null>;
  /**
   * Closes the mailbox whatever waits in it; returns what was never read
   * (after `cursor`). A resident session keeps it instead (`kept`), for a
   * follow-up turn unless `followUp` is false. @defaultValue followUp true
   */
  closeNow(sessionId: string, cursor: string | undefined, options?: { followUp?: boolean; remove?: readonly string[] }): Promise<MailboxDrain>;
  /** Deletes entries by id (the transcript holds them, and no read comes to take the delete along). */
  remove(sessionId: string, ids: readonly string[]): Promise<void>;
  /** Deletes the entries of these envelopes wherever they are (a lost run recorded them). */
  discard(sessionId: string, envelopeIds: readonly string[]): Promise<void>;
}

/** Queues a teammate's next turn when one of its turns leaves messages unread (SQL `teammate_wake`, decision 0035). */
export interface TeammateWakes {
  /**
   * Queues the next turn of `run`'s session (unless one is queued), caused
   * as `run` was; returns the new run's id, or null (none needed, or the
   * teammate is stopped).
   */
  after(run: { id: string; workspaceId: string }): Promise<string | null>;
}

// The spend of runs is written by libs/runs (runs.spent_usd, decision 0044).
export type { SpendLedger, SpendStanding } from '@switchyard/runs';

/** Reads a workspace secret's plaintext; null when there is none of that name. */
export interface SecretReader {
  read(workspaceId: string, name: string): Promise<string | null>;
}

/**
 * What the loop reports as it goes (the service binds it to Prometheus).
 * Labels stay low-cardinality: provider, model, an error code, `<server>.<tool>`
 * and a result — never arguments or texts.
 */
export interface LoopMetrics {
  /** One model call answered: its tokens, its cost (0 when unpriced) and how long it took. */
  modelCall(call: { provider: string; model: string; tokensIn: number; tokensOut: number; costUsd: number; durationMs: number }): void;
  /** One model call failed with this code (after the adapter's own retries). */
  modelError(error: { provider: string; model: string; code: string }): void;
  /** One tool call ended (the tool is `<server>.<tool>`). */
  toolCall(call: { server: string; tool: string; result: 'ok' | 'refused' | 'failed' }): void;
}

/** A run's recorded approval, as its resumed loop needs it (decision 0026). */
export interface RecordedApproval {
  id: string;
  toolCallId: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  decidedBy: ApprovalDecider | null;
  note: string | null;
  decidedAt: string | null;
  expiresAt: string;
}

/** The approvals of a run's calls, and the at-most-once mark of an approved call. */
export interface ApprovalRecords {
  /** The run's approvals of these calls, by tool call id (calls with none are missing). */
  ofCalls(run: { runId: string; workspaceId: string }, toolCallIds: readonly string[]): Promise<Map<string, RecordedApproval>>;
  /**
   * Marks an approved call as executing, once: true for the first caller,
   * false when it was marked before (a runner died during the call: its
   * outcome is unknown, and it is never called again).
   */
  startExecution(approvalId: string): Promise<boolean>;
}

/** A run's waits for facts (decision 0055), as the loop reads them (SqlWaitBook and SqlWaitParking in libs/runs). */
export interface WaitRecords {
  /** The workspace's last seq: facts after it resolve a wait called now. */
  currentSeq(workspaceId: string): Promise<number>;
  /** A wait's outcome once resolved (the tool's result); null while pending or when none was recorded. */
  outcome(runId: string, toolCallId: string): Promise<WaitForEventResult | { type: 'cancelled' } | null>;
}

/** What a digest reads: where the plane's cursor ends, how many notes are new, and the newest of them (oldest first). */
export interface DigestRead {
  lastSeq: number;
  total: number;
  notes: { seq: number; thread: string; topic: string; sender: AgentMessageSender; content: string }[];
}

/** Peer notes for an `awareness: digest` run (decision 0047): the observation plane's store, read-only. */
export interface PeerNoteReader {
  /** The workspace's newest observation seq; 0 when none. */
  lastSeq(workspaceId: string): Promise<number>;
  /** Current notes of other senders after `since`: the newest seq, how many, and the newest `limit` with their content. */
  digestAfter(workspaceId: string, since: number, excludeSenderKey: string, limit: number): Promise<DigestRead>;
}
