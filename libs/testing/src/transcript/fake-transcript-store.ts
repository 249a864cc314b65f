import type { TranscriptEntryType } from '@switchyard/contracts';
import type { ConformingStoredEntry, ConformingTranscriptStore, ConformingTranscriptWriter, TranscriptRunRef } from './transcript-types';

/** A transcript row as the fake holds it (the columns of `transcript_entries` the port reads). */
export interface FakeTranscriptRow {
  sessionId: string;
  seq: number;
  workspaceId: string;
  runId: string;
  type: TranscriptEntryType;
  content: unknown;
}

/**
 * Why this exists: the loop's unit tests need a transcript with the real
 * one's rules (SqlTranscriptStore over `transcript_entries`) without
 * PostgreSQL. Rows are keyed by (session, seq) and never changed: a flush
 * that would reuse a stored seq is refused whole, as the real INSERT fails on
 * the key. Contents are stored as JSON, as the real jsonb column stores them.
 * Passes the transcript conformance suite, as the SQL adapter does.
 */
export class FakeTranscriptStore implements ConformingTranscriptStore {
  /** Every stored row, in the order they were written. */
  readonly rows: FakeTranscriptRow[] = [];

  open(run: TranscriptRunRef): ConformingTranscriptWriter {
    return new FakeTranscriptWriter(this, run);
  }

  async entries(run: { runId: string; workspaceId: string }): Promise<ConformingStoredEntry[]> {
    return this.rows
      .filter((row) => row.runId === run.runId && row.workspaceId === run.workspaceId)
      .sort((a, b) => a.seq - b.seq)
      .map((row) => ({ seq: row.seq, type: row.type, content: JSON.parse(JSON.stringify(row.content)) as unknown }));
  }

  /** The session's highest seq (0 for none): what a claim hands the run as `transcriptSeq`. */
  lastSeq(sessionId: string): number {
    return this.rows.filter((row) => row.sessionId === sessionId).reduce((max, row) => Math.max(max, row.seq), 0);
  }

  /** Writes a flush's rows, all or none (one INSERT in the real store). */
  insert(rows: FakeTranscriptRow[]): void {
    const taken = new Set(this.rows.map((row) => `${row.sessionId}/${row.seq}`));
    for (const row of rows) {
      const key = `${row.sessionId}/${row.seq}`;
      if (taken.has(key)) throw new Error(`transcript entry ${key} exists already (entries are append-only)`);
      taken.add(key);
    }
    this.rows.push(...rows);
  }
}

class FakeTranscriptWriter implements ConformingTranscriptWriter {
  private pending: FakeTranscriptRow[] = [];
  private seq: number;

  constructor(
    private readonly store: FakeTranscriptStore,
    private readonly run: TranscriptRunRef,
  ) {
    this.seq = run.lastSeq;
  }

  add(type: TranscriptEntryType, content: Record<string, unknown>): number {
    this.seq += 1;
    const { runId, workspaceId, sessionId } = this.run;
    this.pending.push({ sessionId, seq: this.seq, workspaceId, runId, type, content: JSON.parse(JSON.stringify(content)) as unknown });
    return this.seq;
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    this.store.insert(rows);
  }
}
