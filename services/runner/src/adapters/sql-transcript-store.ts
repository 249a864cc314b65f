import type { TranscriptEntryType } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { StoredEntry, TranscriptStore, TranscriptWriter } from '../loop/loop-ports';
import type { SessionEntry, SessionHistoryRead, SessionHistoryStore } from '../loop/session-memory';
import { SqlStepBatch, type BatchedEntry } from './sql-step-batch';

/**
 * A teammate turn's history in one statement (decision 0052): the
 * teammate's `memory` (a row of seq 0), the latest compaction of the
 * session, the latest system prompt another turn recorded and the message
 * after it, and the other turns' conversation entries after the
 * compaction's range. Older entries are not read: the compaction and the
 * head are found through `(session_id, type, seq)`, the rows through the
 * primary key's ranges (the second condition, a BitmapOr of them), so the
 * read costs what it returns however long the session (EXPLAIN in
 * docs/perf/teams.md). Every row is of the run's workspace.
 */
export const HISTORY_SQL = `
WITH c AS (SELECT seq, (content->>'throughSeq')::int AS through FROM transcript_entries
            WHERE session_id = $1::uuid AND workspace_id = $2::uuid AND type = 'compaction' ORDER BY seq DESC LIMIT 1),
     h AS (SELECT max(seq) AS seq FROM transcript_entries
            WHERE session_id = $1::uuid AND workspace_id = $2::uuid AND type = 'system' AND run_id <> $3::uuid)
SELECT 0 AS seq, NULL::text AS "runId", 'memory' AS type, t.memory AS content FROM teammates t WHERE t.id = $4::uuid AND t.workspace_id = $2::uuid
UNION ALL
SELECT s.seq, s.run_id::text, s.type, s.content FROM transcript_entries s
 WHERE s.session_id = $1::uuid AND s.workspace_id = $2::uuid
   AND (s.seq = (SELECT seq FROM c)
    OR (s.run_id <> $3::uuid AND (s.seq IN ((SELECT seq FROM h), (SELECT seq FROM h) + 1)
        OR (s.type IN ('user', 'assistant', 'tool') AND s.seq > COALESCE((SELECT through FROM c), 0)))))
   AND (s.seq IN ((SELECT seq FROM c), (SELECT seq FROM h), (SELECT seq FROM h) + 1) OR s.seq > COALESCE((SELECT through FROM c), 0))
 ORDER BY seq`;

/**
 * The transcript in `transcript_entries`, append-only (a trigger refuses
 * updates). Entries are buffered per run and written at each flush — the
 * loop flushes at each step boundary — with the flushes of every other run
 * at its boundary meanwhile, in one INSERT (SqlStepBatch: group commit),
 * so a step costs a share of one round trip however many tool calls it
 * made. `(session_id, seq)` is the key: a second writer on the same session
 * (never expected: one run per session at a time) fails loudly rather than
 * interleaving.
 */
export class SqlTranscriptStore implements TranscriptStore, SessionHistoryStore {
  constructor(
    private readonly sql: SqlRunner,
    /** Where flushes are written; share it with SqlRunReads so that a boundary's stop read goes in the same statement. */
    private readonly batch: SqlStepBatch = new SqlStepBatch(sql),
    /** Told each flush of a followed run, once committed (RunNewsPublisher: its follower reads now, not at its next poll). */
    private readonly news?: { publish(runId: string): void },
  ) {}

  open(run: { runId: string; workspaceId: string; sessionId: string; lastSeq: number; followed?: boolean }): TranscriptWriter {
    return new SqlTranscriptWriter(this.batch, run, run.lastSeq, run.followed ? this.news : undefined);
  }

  /** Uses the `(run_id, seq)` index; scoped to the run's workspace like every read. */
  async entries(run: { runId: string; workspaceId: string }): Promise<StoredEntry[]> {
    return this.sql.$queryRawUnsafe<StoredEntry[]>(
      `SELECT seq, type, content FROM transcript_entries WHERE run_id = $1::uuid AND workspace_id = $2::uuid ORDER BY seq`,
      run.runId,
      run.workspaceId,
    );
  }

  /** A teammate turn's history and the teammate's memory settings (HISTORY_SQL). */
  async history(run: { runId: string; workspaceId: string; sessionId: string; teammateId: string }): Promise<SessionHistoryRead> {
    const rows = await this.sql.$queryRawUnsafe<SessionEntry[]>(HISTORY_SQL, run.sessionId, run.workspaceId, run.runId, run.teammateId);
    const memory = rows[0]?.type === 'memory' ? rows.shift()!.content : null;
    return { entries: rows, memory };
  }
}

class SqlTranscriptWriter implements TranscriptWriter {
  private pending: BatchedEntry[] = [];

  constructor(
    private readonly batch: SqlStepBatch,
    private readonly run: { runId: string; workspaceId: string; sessionId: string },
    private seq: number,
    private readonly news?: { publish(runId: string): void },
  ) {}

  add(type: TranscriptEntryType, content: Record<string, unknown>): number {
    this.seq += 1;
    const { sessionId, workspaceId, runId } = this.run;
    this.pending.push({ sessionId, seq: this.seq, workspaceId, runId, type, content: JSON.stringify(content) });
    return this.seq;
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const entries = this.pending;
    this.pending = [];
    await this.batch.write(entries);
    this.news?.publish(this.run.runId);
  }
}
