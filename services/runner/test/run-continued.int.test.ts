import { AgentSpecSchema, type AgentSpec } from '@switchyard/contracts';
import { sessionLane } from '@switchyard/runs';
import { newId } from '@switchyard/core';
import { createTestRedis, createTestSql, type TestRedis, type TestSql } from '@switchyard/testing';
import { SqlRunContextStore } from '../src/adapters/sql-run-context';
import { SqlRunQueue } from '@switchyard/runs';
import { SqlTranscriptStore } from '../src/adapters/sql-transcript-store';
import type { ExecutableRun, StartedRun } from '../src/ports';
import { realAgentLoop } from './loop-test-helpers';

/**
 * A started run says whether it has transcript entries of its own
 * (`continued`), and only such a run reads them: a teammate's next turn, whose
 * session holds the entries of its earlier turns, starts from an empty state
 * without a read and writes after the session's last seq. Real PostgreSQL
 * (the queue's claim and the context store) and Redis (the mailbox).
 */
describe('a run reads its transcript entries only when it has some', () => {
  let t: TestSql;
  let redis: TestRedis;
  const workspaceId = newId();
  const userId = newId();
  const agentId = newId();
  const sessionId = newId();
  const spec: AgentSpec = AgentSpecSchema.parse({
    name: 'turns',
    instructions: 'Say done.',
    model: { provider: 'scripted', name: 'script' },
    script: [{ say: 'done' }],
    triggers: [{ kind: 'never.happens' }],
  });

  beforeAll(async () => {
    t = await createTestSql();
    redis = await createTestRedis();
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'continued')`, [workspaceId]);
    await t.pg.query(`INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, 'turns', 1, true, $3, now())`, [
      agentId,
      workspaceId,
      userId,
    ]);
    await t.pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, $2, $3)`, [agentId, JSON.stringify(spec), userId]);
  });
  afterAll(async () => {
    await redis?.cleanup();
    await t?.close();
  });

  const queue = () => new SqlRunQueue(t.sql, { owner: 'test', leaseMs: 30_000 });
  /** A turn of the session, queued in its lane and claimed: what the runner would execute. */
  const claimTurn = async (): Promise<StartedRun> => {
    const id = newId();
    await t.pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, lane, queued_at)
       VALUES ($1, $2, $3, 1, 'manual', $4, 'queued', $5, $6, now())`,
      [id, workspaceId, agentId, JSON.stringify({ type: 'manual', input: 'go', userId }), sessionId, sessionLane(sessionId)],
    );
    const claim = await queue().claim(id, 1);
    expect(claim.started.map((run) => run.id)).toEqual([id]);
    return claim.started[0]!;
  };
  const execute = async (run: StartedRun, reads: string[]) => {
    const store = new SqlTranscriptStore(t.sql);
    const transcripts = { open: store.open.bind(store), entries: async (of: { runId: string; workspaceId: string }) => (reads.push(of.runId), store.entries(of)) };
    const { stop: _stop, ...started } = run;
    const executable: ExecutableRun = { ...started, spec };
    const result = await realAgentLoop(t.sql, redis.redis, redis.prefix, undefined, { transcripts }).execute(executable, { signal: new AbortController().signal, shouldStop: async () => null });
    // Ended as the runner ends it, so that the lane (concurrency 1) starts the next turn.
    await queue().end(run.id, { status: 'completed', reason: null, outcome: null, error: null }, 0);
    return result;
  };
  const seqsOf = async (runId: string) => (await t.pg.query(`SELECT seq FROM transcript_entries WHERE run_id = $1 ORDER BY seq`, [runId])).rows.map((row) => row.seq);

  it("a session's next turn reads nothing and continues the session's seqs; a run with entries of its own is continued", async () => {
    const first = await claimTurn();
    expect(first.context).toMatchObject({ transcriptSeq: 0, continued: false });
    const reads: string[] = [];
    expect(await execute(first, reads)).toMatchObject({ status: 'completed' });
    const firstSeqs = await seqsOf(first.id);
    expect(firstSeqs.length).toBeGreaterThan(0);

    const next = await claimTurn();
    expect(next.context).toMatchObject({ transcriptSeq: Math.max(...firstSeqs), continued: false });
    expect(await execute(next, reads)).toMatchObject({ status: 'completed' });
    // Neither turn read its entries: each started from an empty state.
    expect(reads).toEqual([]);
    const nextSeqs = await seqsOf(next.id);
    expect(nextSeqs[0]).toBe(Math.max(...firstSeqs) + 1);

    // The context store (a run executed without a claim's context) says the same of a run with entries.
    const contexts = new SqlRunContextStore(t.sql);
    expect(await contexts.context({ id: next.id, workspaceId, workspaceSlug: 'continued' })).toMatchObject({ continued: true });
    const fresh = await claimTurn();
    expect(await contexts.context({ id: fresh.id, workspaceId, workspaceSlug: 'continued' })).toMatchObject({ continued: false });

    // A run that recorded an entry, parked and resumed: its claim says continued, and its state is read.
    await t.pg.query(`INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content) VALUES ($1, $2, $3, $4, 'system', '{"text": "x"}')`, [
      sessionId,
      Math.max(...nextSeqs) + 1,
      workspaceId,
      fresh.id,
    ]);
    expect((await queue().park(fresh.id, 0)).ended).toBe(true);
    expect(await queue().resume(fresh.id)).toBe(true);
    const resumed = await queue().claim(fresh.id, 1);
    expect(resumed.started.map((run) => [run.id, run.context.continued])).toEqual([[fresh.id, true]]);
  });
});
