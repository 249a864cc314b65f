import type { AgentSpec } from '@switchyard/contracts';
import { AgentSpecSchema } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createTestRedis, createTestSql, spawnScript, startTestMcpServer, waitFor, type TestMcpHttpServer, type TestRedis, type TestSql } from '@switchyard/testing';
import { rebuildRunState } from '../src/loop/run-state';
import type { StepOutcome } from '../src/loop/steps';
import type { ExecutableRun } from '../src/ports';
import { realAgentLoop } from './loop-test-helpers';

/**
 * Issue 14, the loop's writes (decision 0016): the model's answer is stored
 * with its calls' results, in one INSERT, not before its calls run; a runner
 * SIGKILLed between the two leaves the run's state before that model call,
 * and another runner continues from it — the model is asked again, the call
 * whose result was not stored runs again, the transcript has no gap and no
 * repeat. Real PostgreSQL, Redis, MCP server over HTTP and a real process.
 */
jest.setTimeout(90_000);

describe('issue 14: a step writes the model answer with its tool results', () => {
  let t: TestSql;
  let redis: TestRedis;
  let mcp: TestMcpHttpServer;
  const workspaceId = newId();
  const userId = newId();
  const agentId = newId();

  beforeAll(async () => {
    t = await createTestSql();
    redis = await createTestRedis();
    mcp = await startTestMcpServer();
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'step-writes')`, [workspaceId]);
  });
  afterAll(async () => {
    await mcp?.close();
    await redis?.cleanup();
    await t?.close();
  });

  /** A `running` run of a scripted agent: an echo, a call of `slow` for `slowMs`, then done. */
  const startRun = async (slowMs: number): Promise<ExecutableRun> => {
    const spec: AgentSpec = AgentSpecSchema.parse({
      name: 'writes',
      instructions: 'Echo, wait, say done.',
      model: { provider: 'scripted', name: 'script' },
      script: [{ tool: 'web.echo', arguments: { text: 'one' } }, { tool: 'web.slow', arguments: { ms: slowMs } }, { say: 'done' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      triggers: [{ kind: 'never.happens' }],
      permissionMode: 'bypass',
    });
    const id = newId();
    await t.pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, started_at)
       VALUES ($1, $2, $3, 1, 'manual', $4, 'running', $5, now())`,
      [id, workspaceId, agentId, JSON.stringify({ type: 'manual', input: 'go', userId }), newId()],
    );
    return { id, workspaceId, workspaceSlug: 'step-writes', agentId, agentVersion: 1, status: 'running', eventId: null, depth: 0, spec };
  };
  /** The run's stored entries, with the transaction that wrote each (`xmin`). */
  const entriesOf = async (runId: string) =>
    (await t.pg.query(`SELECT seq, type, content, xmin::text AS tx FROM transcript_entries WHERE run_id = $1 ORDER BY seq`, [runId])).rows as Array<{ seq: number; type: string; content: any; tx: string }>;
  const slowCalls = () => mcp.calls.filter((call) => call.name === 'slow').length;
  const idle = { signal: new AbortController().signal, shouldStop: async () => null };

  it('while a tool runs its answer is not stored yet; then the answer and its results are stored by one INSERT', async () => {
    const run = await startRun(1500);
    const before = slowCalls();
    const result = realAgentLoop(t.sql, redis.redis, redis.prefix).execute(run, idle);
    await waitFor(async () => slowCalls() > before, { timeoutMs: 30_000, intervalMs: 10, what: 'the slow call reached the MCP server' });
    // The second answer (the one that asked for `slow`) is not in PostgreSQL while its call runs.
    expect((await entriesOf(run.id)).map((entry) => entry.type)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(await result).toMatchObject({ status: 'completed', outcome: { summary: 'done', turns: 3, toolCalls: 2 } });

    const entries = await entriesOf(run.id);
    expect(entries.map((entry) => entry.type)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const tx = entries.map((entry) => entry.tx);
    // The prompt with the first answer and its result; the second answer with its result; the final answer.
    expect(new Set(tx.slice(0, 4)).size).toBe(1);
    expect(tx[4]).toBe(tx[5]);
    expect(new Set([tx[0], tx[4], tx[6]]).size).toBe(3);
  });

  it('a runner SIGKILLed while a tool runs: the state before that model call is stored, and another runner asks the model again and completes the run', async () => {
    const run = await startRun(2000);
    const before = slowCalls();
    const doomed = await spawnScript(
      'services/runner/test/fixtures/agent-loop-process.ts',
      { DATABASE_URL: t.db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, LOOP_TEST_RUN: JSON.stringify(run) },
      { readyPattern: /loop started/ },
    );
    await waitFor(async () => slowCalls() > before, { timeoutMs: 30_000, intervalMs: 10, what: 'the slow call reached the MCP server' });
    expect(doomed.output()).toContain('step model_called');
    await doomed.stop('SIGKILL');

    const left = await entriesOf(run.id);
    expect(left.map((entry) => entry.type)).toEqual(['system', 'user', 'assistant', 'tool']);
    const state = rebuildRunState(run.id, left);
    expect(state.next).toEqual({ type: 'model' });
    expect(state.tally.turns).toBe(1);

    const outcomes: StepOutcome['type'][] = [];
    const result = await realAgentLoop(t.sql, redis.redis, redis.prefix, (outcome) => outcomes.push(outcome.type)).execute(run, idle);
    expect(result).toMatchObject({ status: 'completed', outcome: { summary: 'done', turns: 3, toolCalls: 2, toolCallsByResult: { ok: 2, refused: 0, failed: 0 } } });
    // The lost step is taken again from its model call; the call it made runs a second time (no at-most-once guard on it).
    expect(outcomes).toEqual(['model_called', 'tools_ran', 'finished']);
    expect(slowCalls() - before).toBe(2);
    const entries = await entriesOf(run.id);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(entries.map((entry) => entry.type)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(entries.filter((entry) => entry.type === 'tool').map((entry) => entry.content.toolCallId)).toEqual(['scripted_call_0', 'scripted_call_1']);
  });
});
