import type { TranscriptEntryType } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { TranscriptStore, TranscriptTail, TranscriptWriter } from '../loop/loop-ports';

/**
 * The transcript in `transcript_entries`, append-only (a trigger refuses
 * updates). Entries are buffered and written with one INSERT per flush — the
 * loop flushes once per step — so a step costs one round trip however many
 * tool calls it made. `(session_id, seq)` is the key: a second writer on the
 * same session (never expected: one run per session) fails loudly rather
 * than interleaving.
 */
export class SqlTranscriptStore implements TranscriptStore {
  constructor(
    private readonly sql: SqlRunner,
    /** Applied to every entry before it is stored (secret redaction). */
    private readonly sanitize: (content: Record<string, unknown>) => Record<string, unknown> = (content) => content,
  ) {}

  open(run: { runId: string; workspaceId: string; sessionId: string; lastSeq: number }): TranscriptWriter {
    return new SqlTranscriptWriter(this.sql, run, run.lastSeq, this.sanitize);
  }
}

class SqlTranscriptWriter implements TranscriptWriter {
  private pending: Array<{ seq: number; type: TranscriptEntryType; content: string }> = [];

  constructor(
    private readonly sql: SqlRunner,
    private readonly run: { runId: string; workspaceId: string; sessionId: string },
    private seq: number,
    private readonly sanitize: (content: Record<string, unknown>) => Record<string, unknown>,
  ) {}

  add(type: TranscriptEntryType, content: Record<string, unknown>): void {
    this.seq += 1;
    this.pending.push({ seq: this.seq, type, content: JSON.stringify(this.sanitize(content)) });
  }

  async flush(): Promise<void> {
    const tail = this.take();
    if (!tail) return;
    await this.sql.$executeRawUnsafe(
      `INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content)
       SELECT $1::uuid, seq, $2::uuid, $3::uuid, type, content
         FROM unnest($4::int[], $5::text[], $6::jsonb[]) AS t(seq, type, content)`,
      ...transcriptTailParams(tail),
    );
  }

  take(): TranscriptTail | null {
    if (this.pending.length === 0) return null;
    const entries = this.pending;
    this.pending = [];
    return { ...this.run, entries };
  }
}

/**
 * The parameters, in order, of an INSERT of a tail into `transcript_entries`
 * (session, workspace, run, then the seq, type and content arrays).
 */
export function transcriptTailParams(tail: TranscriptTail | undefined): [string | null, string | null, string | null, number[], string[], string[]] {
  const entries = tail?.entries ?? [];
  return [
    tail?.sessionId ?? null,
    tail?.workspaceId ?? null,
    tail?.runId ?? null,
    entries.map((entry) => entry.seq),
    entries.map((entry) => entry.type),
    entries.map((entry) => entry.content),
  ];
}
