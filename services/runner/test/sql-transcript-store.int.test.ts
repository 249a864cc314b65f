import { createTestSql, describeTranscriptConformance, type TestSql } from '@switchyard/testing';
import { SqlTranscriptStore } from '../src/adapters/sql-transcript-store';

/**
 * The transcript on a real PostgreSQL passes the conformance suite the fake
 * passes. A session's last seq is read as the run queue's claim reads it
 * (the highest seq of the session's entries).
 */
describeTranscriptConformance('SqlTranscriptStore', async () => {
  const t: TestSql = await createTestSql();
  return {
    store: new SqlTranscriptStore(t.sql),
    lastSeq: async (sessionId) =>
      (await t.pg.query<{ seq: number }>('SELECT coalesce(max(seq), 0)::int AS seq FROM transcript_entries WHERE session_id = $1', [sessionId])).rows[0]!.seq,
    close: () => t.close(),
  };
});
