import type { AgentSpec, MailboxEnvelope, RunState } from '@switchyard/contracts';
import { AgentSpecSchema } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createLogger } from '@switchyard/logging';
import { SessionMailbox } from '@switchyard/redis';
import { createTestRedis, createTestSql, startTestMcpServer, type TestMcpHttpServer, type TestRedis, type TestSql } from '@switchyard/testing';
import { RedisMailbox } from '../src/adapters/redis-mailbox';
import { SqlRunContextStore } from '../src/adapters/sql-run-context';
import { SqlSecretReader } from '../src/adapters/sql-secret-reader';
import { SqlSpendLedger } from '@switchyard/runs';
import { SqlTranscriptStore } from '../src/adapters/sql-transcript-store';
import { AgentLoop } from '../src/loop/agent-loop';
import { rebuildRunState } from '../src/loop/run-state';
import type { StepOutcome } from '../src/loop/steps';
import { createModel } from '../src/model/create-model';
import { createPriceTable } from '../src/model/prices';
import type { ExecutableRun } from '../src/ports';
import { connectTools } from '../src/tools';

/**
 * Issue 14, item 2: a run can stop after any step and be continued by any
 * runner from what PostgreSQL holds. Two AgentLoop instances (as two runners
 * would have) with the real stores — transcript in PostgreSQL, mailbox in
 * Redis — a real MCP server over HTTP and the scripted model: the first is
 * stopped after its second step, the second continues the run to its end.
 */
jest.setTimeout(60_000);

const log = createLogger({ service: 'resumable-loop-test', level: 'silent' });

describe('issue 14: the agent loop continues a run after its last step', () => {
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
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'resume')`, [workspaceId]);
  });
  afterAll(async () => {
    await mcp?.close();
    await redis?.cleanup();
    await t?.close();
  });

  /** A new loop with the runner's real adapters, as another runner process would build it; `onStep` sees each step's state. */
  const newLoop = (onStep: (outcome: StepOutcome, state: Readonly<RunState>) => void) =>
    new AgentLoop({
      contexts: new SqlRunContextStore(t.sql),
      transcripts: new SqlTranscriptStore(t.sql),
      mailbox: new RedisMailbox(redis.redis, redis.prefix),
      spend: new SqlSpendLedger(t.sql),
      secrets: new SqlSecretReader(t.sql, null),
      prices: createPriceTable(),
      model: (spec, input) => createModel(spec, { ...input, env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: undefined, MODEL_TIMEOUT_MS: 1000, MODEL_MAX_ATTEMPTS: 1 } }),
      tools: (input) => connectTools({ ...input, options: { allowPrivate: true }, log }),
      onStep,
      log,
    });

  /** A `running` run of a scripted agent that echoes twice, then says done. */
  const startRun = async (): Promise<ExecutableRun & { sessionId: string }> => {
    const spec: AgentSpec = AgentSpecSchema.parse({
      name: 'resumable',
      instructions: 'Echo, then say done.',
      model: { provider: 'scripted', name: 'script' },
      script: [{ tool: 'web.echo', arguments: { text: 'one' } }, { tool: 'web.echo', arguments: { text: 'two' } }, { say: 'done' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      triggers: [{ kind: 'never.happens' }],
      permissionMode: 'bypass',
    });
    const id = newId();
    const sessionId = newId();
    await t.pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, started_at)
       VALUES ($1, $2, $3, 1, 'manual', $4, 'running', $5, now())`,
      [id, workspaceId, agentId, JSON.stringify({ type: 'manual', input: 'go', userId }), sessionId],
    );
    return { id, workspaceId, workspaceSlug: 'resume', agentId, agentVersion: 1, status: 'running', eventId: null, depth: 0, spec, sessionId };
  };

  const entriesOf = async (runId: string) =>
    (await t.pg.query(`SELECT seq, type, content FROM transcript_entries WHERE run_id = $1 ORDER BY seq`, [runId])).rows as Array<{ seq: number; type: string; content: any }>;
  const echoed = () => mcp.calls.filter((call) => call.name === 'echo').map((call) => call.arguments);

  it('stopped after its second step and continued by a new AgentLoop: the run finishes, the transcript continuous, no step taken twice', async () => {
    const run = await startRun();
    const mailbox = new SessionMailbox(redis.redis, redis.prefix);
    const envelope: MailboxEnvelope = { schemaVersion: 1, id: newId(), sessionId: run.sessionId, from: { type: 'user', userId }, content: 'mind the logs', sentAt: new Date().toISOString() };
    expect(await mailbox.post(envelope)).toBe('delivered');
    const before = echoed().length;

    // The first runner: stopped at the boundary after its second step (the first tool call ran).
    const states: RunState[] = [];
    const outcomes: string[] = [];
    const stop = new AbortController();
    const first = await newLoop((outcome, state) => {
      outcomes.push(outcome.type);
      states.push(structuredClone(state) as RunState);
      if (outcomes.length === 2) stop.abort('taken over');
    }).execute(run, { signal: stop.signal, shouldStop: async () => null });
    expect(first).toMatchObject({ status: 'failed', error: { code: 'aborted' } });
    expect(outcomes).toEqual(['model_called', 'tools_ran']);
    expect(echoed().slice(before)).toEqual([{ text: 'one' }]);
    const stopped = await entriesOf(run.id);
    expect(stopped.map((entry) => entry.type)).toEqual(['system', 'user', 'user', 'assistant', 'tool']);

    // As if the first runner died after writing the message to the transcript and before
    // deleting it from the mailbox (and closing it): the entry is still there.
    await redis.redis.del(`${redis.prefix}:mailbox-closed:${run.sessionId}`);
    expect(await mailbox.post(envelope)).toBe('delivered');

    // Another runner continues the run from what PostgreSQL holds.
    const second = await newLoop((outcome, state) => {
      outcomes.push(outcome.type);
      states.push(structuredClone(state) as RunState);
    }).execute(run, { signal: new AbortController().signal, shouldStop: async () => null });
    expect(second).toMatchObject({
      status: 'completed',
      outcome: { summary: 'done', turns: 3, toolCalls: 2, toolCallsByResult: { ok: 2, refused: 0, failed: 0 } },
    });
    expect(outcomes).toEqual(['model_called', 'tools_ran', 'model_called', 'tools_ran', 'finished']);
    // Each tool call made once, in order.
    expect(echoed().slice(before)).toEqual([{ text: 'one' }, { text: 'two' }]);

    const entries = await entriesOf(run.id);
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_entry, i) => i + 1));
    expect(entries.map((entry) => entry.type)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const callIds = entries.filter((entry) => entry.type === 'tool').map((entry) => entry.content.toolCallId);
    expect(callIds).toEqual(['scripted_call_0', 'scripted_call_1']);
    // The message is in the transcript once, and gone from the mailbox.
    expect(entries.filter((entry) => entry.content.envelopeId === envelope.id)).toHaveLength(1);
    expect(await redis.redis.xlen(`${redis.prefix}:mailbox:${run.sessionId}`)).toBe(0);
  });

  it('the state rebuilt from the entries the loop wrote equals the state the loop had after each of its steps', async () => {
    const run = await startRun();
    const states: RunState[] = [];
    const result = await newLoop((_outcome, state) => states.push(structuredClone(state) as RunState)).execute(run, {
      signal: new AbortController().signal,
      shouldStop: async () => null,
    });
    expect(result.status).toBe('completed');
    const entries = await entriesOf(run.id);
    expect(states).toHaveLength(5);
    for (const state of states) {
      expect(rebuildRunState(run.id, entries.filter((entry) => entry.seq <= state.lastSeq))).toEqual(state);
    }
    const last = states.at(-1)!;
    expect(last.lastSeq).toBe(entries.at(-1)!.seq);
    expect(last.next).toEqual({ type: 'finish' });
    expect(last.conversation.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });
});
