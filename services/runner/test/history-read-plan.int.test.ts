import { randomUUID } from 'node:crypto';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { HISTORY_SQL, SqlTranscriptStore } from '../src/adapters/sql-transcript-store';

jest.setTimeout(120_000);

/** Rows PostgreSQL read from `transcript_entries` by the plan's scan nodes (EXPLAIN ANALYZE, JSON). */
function rowsRead(node: Record<string, any>): number {
  const own = node['Relation Name'] === 'transcript_entries' ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0) : 0;
  return own + ((node.Plans as Array<Record<string, any>> | undefined) ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/**
 * Decision 0052: a teammate turn's history read costs what it returns, not the
 * session's length. On a session of 20,000 entries whose latest compaction
 * leaves 100 after its range, the statement reads about those rows (the
 * compaction and the head found through `(session_id, type, seq)`), never the
 * session.
 */
describe('the teammate history read on a long session', () => {
  let t: TestSql;
  beforeAll(async () => {
    t = await createTestSql();
  });
  afterAll(() => t?.close());

  it('reads the latest compaction, the head and the entries after the range, not the session', async () => {
    const [session, workspace, current] = [randomUUID(), randomUUID(), randomUUID()];
    // 2,000 earlier turns of 10 entries: the head at seq 1, a compaction every 500 entries; the latest (seq 19,503) summarizes through 19,900 − 400.
    await t.pg.query(
      `INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content)
       SELECT $1::uuid, g, $2::uuid, md5('run' || ((g - 1) / 10))::uuid,
              CASE WHEN g = 1 THEN 'system' WHEN g % 500 = 3 THEN 'compaction' WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
              CASE WHEN g % 500 = 3 THEN jsonb_build_object('summary', 's', 'fromSeq', 3, 'throughSeq', g - 400) ELSE jsonb_build_object('text', repeat('x', 200)) END
         FROM generate_series(1, 20000) g`,
      [session, workspace],
    );
    await t.pg.query('ANALYZE transcript_entries');
    const args = [session, workspace, current, randomUUID()];

    const history = await new SqlTranscriptStore(t.sql).history({ sessionId: session, workspaceId: workspace, runId: current, teammateId: args[3]! });
    const through = 19_503 - 400;
    // The head and the message after it, the compaction, and every conversation entry after its range.
    expect(history.entries.map((entry) => entry.seq)).toEqual([1, 2, ...Array.from({ length: 20_000 - through }, (_, i) => through + 1 + i)]);
    expect(history.entries.filter((entry) => entry.type === 'compaction').map((entry) => entry.seq)).toEqual([19_503]);

    const plan = (await t.pg.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${HISTORY_SQL}`, args)).rows[0]['QUERY PLAN'][0].Plan;
    const read = rowsRead(plan);
    expect(read).toBeGreaterThanOrEqual(history.entries.length);
    expect(read).toBeLessThan(history.entries.length + 50);
  });
});
