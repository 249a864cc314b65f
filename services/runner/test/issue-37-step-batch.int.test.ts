import { RUN_CANCEL_REASONS } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { SqlRunner } from '@switchyard/db';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { SqlRunReads } from '../src/adapters/sql-run-reads';
import { SqlStepBatch } from '../src/adapters/sql-step-batch';
import { SqlTranscriptStore } from '../src/adapters/sql-transcript-store';

/**
 * Issue 37, a runner's per-turn cost (decision 0053): the step boundaries of
 * many runs in flight — each a transcript flush and a stop read — are
 * written by one statement in one transaction (group commit), not one
 * statement and one commit each; one run's refused rows fail its own flush
 * only. Real PostgreSQL; statements are counted by wrapping the real pool.
 */
jest.setTimeout(60_000);

describe('issue 37: step boundaries of many runs go out together', () => {
  let t: TestSql;
  const workspaceId = newId();
  const agentId = newId();
  const statements: string[] = [];
  /** The test database's pool, counting what it is asked. */
  let counted: SqlRunner;

  beforeAll(async () => {
    t = await createTestSql();
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'step-batch')`, [workspaceId]);
    counted = {
      $queryRawUnsafe: (query, ...values) => (statements.push(query), t.sql.$queryRawUnsafe(query, ...values)),
      $executeRawUnsafe: (query, ...values) => (statements.push(query), t.sql.$executeRawUnsafe(query, ...values)),
    };
  });
  afterAll(async () => {
    await t?.close();
  });

  /** `n` running runs of one agent, each in a session of its own. */
  const runs = async (n: number) => {
    const made = Array.from({ length: n }, () => ({ runId: newId(), sessionId: newId(), workspaceId, lastSeq: 0 }));
    for (const run of made) {
      await t.pg.query(
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, started_at)
         VALUES ($1, $2, $3, 1, 'manual', '{"type":"manual"}', 'running', $4, now())`,
        [run.runId, workspaceId, agentId, run.sessionId],
      );
    }
    return made;
  };
  const transactionsOf = async (runIds: string[]) =>
    (await t.pg.query<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM transcript_entries WHERE run_id = ANY($1::uuid[])`, [runIds])).rows[0]!.n;

  it('the flushes and stop reads of 200 runs at their boundary at once take a few statements, not one each', async () => {
    const batch = new SqlStepBatch(counted);
    const store = new SqlTranscriptStore(counted, batch);
    const reads = new SqlRunReads(counted, batch);
    const made = await runs(200);
    await t.pg.query(`UPDATE runs SET stop_requested = true WHERE id = $1`, [made[7]!.runId]);
    const writers = made.map((run) => store.open(run));
    writers.forEach((writer, i) => writer.add('assistant', { text: `answer ${i}`, toolCalls: [], final: false }));
    statements.length = 0;
    // A boundary: each run's flush and its stop read, all in the same turn of the event loop.
    const stops = await Promise.all(made.map(async (run, i) => (await Promise.all([writers[i]!.flush(), reads.stopReason(run.runId)]))[1]));

    // At most the batches out at once (4 by default), each one statement and one commit.
    expect(statements.length).toBeLessThanOrEqual(4);
    expect(await transactionsOf(made.map((run) => run.runId))).toBeLessThanOrEqual(4);
    expect(stops.filter((stop) => stop !== null)).toEqual([RUN_CANCEL_REASONS.stopped]);
    expect(stops[7]).toBe(RUN_CANCEL_REASONS.stopped);
    for (const [i, run] of made.entries()) expect(await store.entries(run)).toEqual([{ seq: 1, type: 'assistant', content: { text: `answer ${i}`, toolCalls: [], final: false } }]);
  });

  it("one run's refused rows fail its own flush; the other runs' entries of the same batch are stored", async () => {
    const batch = new SqlStepBatch(t.sql, { inFlight: 1 });
    const store = new SqlTranscriptStore(t.sql, batch);
    const made = await runs(20);
    // A second writer of run 3's session (a runner that stalled past its lease) took seq 1 first.
    const stale = store.open(made[3]!);
    stale.add('notice', { code: 'first', message: 'stored first' });
    await stale.flush();
    const writers = made.map((run) => store.open(run));
    writers.forEach((writer, i) => writer.add('notice', { code: 'n', message: String(i) }));
    const results = await Promise.allSettled(writers.map((writer) => writer.flush()));

    expect(results.map((result) => result.status)).toEqual(made.map((_, i) => (i === 3 ? 'rejected' : 'fulfilled')));
    expect(await store.entries(made[3]!)).toEqual([{ seq: 1, type: 'notice', content: { code: 'first', message: 'stored first' } }]);
    for (const [i, run] of made.entries()) if (i !== 3) expect((await store.entries(run)).map((entry) => entry.content)).toEqual([{ code: 'n', message: String(i) }]);
  });

  it("a paused workspace stops its runs at their boundary; a run not in the ledger reads no stop", async () => {
    const batch = new SqlStepBatch(t.sql);
    const reads = new SqlRunReads(t.sql, batch);
    const [run] = await runs(1);
    await t.pg.query(`INSERT INTO workspace_settings (workspace_id, agents_paused) VALUES ($1, true) ON CONFLICT (workspace_id) DO UPDATE SET agents_paused = true`, [workspaceId]);
    try {
      expect(await Promise.all([reads.stopReason(run!.runId), reads.stopReason(newId())])).toEqual([RUN_CANCEL_REASONS.agentsPaused, null]);
    } finally {
      await t.pg.query(`UPDATE workspace_settings SET agents_paused = false WHERE workspace_id = $1`, [workspaceId]);
    }
  });
});
