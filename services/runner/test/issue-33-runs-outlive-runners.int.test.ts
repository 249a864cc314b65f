import { Client } from 'pg';
import {
  apiClient,
  RedisServer,
  spawnScript,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { scripted } from './runner-test-helpers';

/**
 * Issue 33, item 9 (decision 0051): a run outlives its runner and a Redis
 * blip. A runner is SIGKILLed with runs in flight at every step kind —
 * claimed before its first model call, during a model call, during a
 * read-only tool call, during a write call, after its final step — and
 * another runner continues each from its last stored step: every run
 * completes exactly once with a whole transcript, the read is called again,
 * and the run inside the write call ends runner_lost with the call made
 * once. Then a redis-server of the test's own stops for 5 s while 50 runs
 * execute: every run completes. Real processes, PostgreSQL, Redis, MCP over HTTP.
 */
jest.setTimeout(300_000);

interface RunRow {
  id: string;
  agent_id: string;
  status: string;
  reason: string | null;
}

interface EntryRow {
  seq: number;
  type: string;
  content: { toolCallId?: string; toolCalls?: Array<{ id: string; name: string }>; final?: boolean; code?: string; name?: string };
}

describe('issue 33: a run outlives its runner and a Redis blip', () => {
  let platform: TestPlatform | undefined;
  let pg: Client | undefined;
  let mcp: TestMcpHttpServer | undefined;
  let ownRedis: RedisServer | undefined;
  const extra: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((proc) => proc.stop('SIGKILL').catch(() => undefined)));
    await pg?.end();
    await platform?.stop();
    await mcp?.close();
    await ownRedis?.stop();
    pg = platform = mcp = ownRedis = undefined;
  });
  const connect = async () => {
    pg = new Client({ connectionString: platform!.db.url });
    await pg.connect();
    return pg;
  };
  const runsOf = async (agentIds: readonly string[]) =>
    (await pg!.query<RunRow>(`SELECT id::text, agent_id::text, status::text, reason FROM runs WHERE agent_id = ANY($1::uuid[]) ORDER BY queued_at, id`, [agentIds])).rows;
  const entriesOf = async (runId: string) =>
    (await pg!.query<EntryRow>(`SELECT seq, type, content FROM transcript_entries WHERE run_id = $1::uuid ORDER BY seq`, [runId])).rows;

  /** A whole transcript: one prompt, every call of every answer answered once, after it, and a final answer last. */
  const expectWhole = (entries: readonly EntryRow[]) => {
    const seqs = entries.map((entry) => entry.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(entries.filter((entry) => entry.type === 'system')).toHaveLength(1);
    const calls = entries.flatMap((entry) => (entry.type === 'assistant' ? (entry.content.toolCalls ?? []).map((call) => ({ id: call.id, seq: entry.seq })) : []));
    for (const call of calls) {
      const results = entries.filter((entry) => entry.type === 'tool' && entry.content.toolCallId === call.id && entry.seq > call.seq);
      expect(results).toHaveLength(1);
    }
    const answers = entries.filter((entry) => entry.type === 'assistant');
    expect(answers.at(-1)!.content.toolCalls ?? []).toHaveLength(0);
  };

  it('a runner SIGKILLed with runs at every step kind: each is continued by another runner and completes once; the one inside a write call ends runner_lost, the call made once', async () => {
    mcp = await startTestMcpServer();
    const env = { RUNNER_MCP_ALLOW_PRIVATE: 'true', RUNNER_LEASE_MS: '5000', RUNNER_SWEEP_INTERVAL_MS: '300', CLAIM_IDLE_MS: '1000' };
    platform = await startTestPlatform({ matcher: true, runners: 0, env });
    await connect();
    const token = await platform.createWorkspace('outlive');
    const api = apiClient(platform.gatewayUrl, token);
    const web = { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] };
    const agent = async (name: string, spec: Record<string, unknown>) => {
      const created = await api('POST', '/v1/workspaces/outlive/agents', { instructions: 'Act on the fact.', triggers: [{ kind: `${name}.go` }], permissionMode: 'bypass', tools: web, ...spec, name });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    const post = async (name: string, id = '1') => expect((await api('POST', '/v1/workspaces/outlive/events', { kind: `${name}.go`, subject: { type: 't', id } })).status).toBe(202);
    const agents = {
      // A read, then a model call of 10 s: killed during that second call, its first step stored.
      model: await agent('model', { model: { provider: 'scripted', name: 'script', params: { stepMs: 10_000 } }, script: [{ tool: 'web.echo', arguments: { text: 'first step' } }, { say: 'done' }] }),
      read: await agent('read', { model: { provider: 'scripted', name: 'script' }, script: [{ tool: 'web.slow', arguments: { ms: 25_000 } }, { say: 'done' }] }),
      write: await agent('write', { model: { provider: 'scripted', name: 'script' }, script: [{ tool: 'web.slow_write', arguments: { ms: 25_000 } }, { say: 'done' }] }),
      final: await agent('final', { model: { provider: 'scripted', name: 'script' }, script: [{ say: 'done' }] }),
      // Concurrency 1: the first run's ending starts the second, and the runner dies right then.
      before: await agent('before', { model: { provider: 'scripted', name: 'script', params: { stepMs: 1500 } }, script: [{ say: 'done' }] }),
    };
    const dying = await spawnScript(
      'services/runner/test/fixtures/runner-dies-after-ending.ts',
      { ...platform.env, RUNNER_NAME: `dying-${Date.now()}`, RUNNER_TEST_DIE_AFTER_ENDING: '1', RUNNER_TEST_HOLD_ENDINGS_OF: agents.final },
      { readyPattern: /runner started/ },
    );
    extra.push(dying);
    for (const name of ['model', 'read', 'write']) await post(name);
    const [modelRun] = await waitFor(async () => {
      const rows = await runsOf([agents.model]);
      const tool = rows[0] && (await entriesOf(rows[0].id)).some((entry) => entry.type === 'tool');
      return tool ? rows : undefined;
    }, { timeoutMs: 30_000, intervalMs: 50, what: 'the model run in its second model call, its first step stored' });
    await waitFor(async () => (mcp!.calls.some((call) => call.name === 'slow') && mcp!.calls.some((call) => call.name === 'slow_write')) || undefined, { timeoutMs: 10_000, intervalMs: 20, what: 'the read and the write in progress' });
    await post('final');
    await waitFor(async () => /fixture: holding the ending/.test(dying.output()) || undefined, { timeoutMs: 10_000, intervalMs: 20, what: 'the final run held after its last step' });
    await post('before', '1');
    await post('before', '2');
    expect(await dying.exited).toBe('SIGKILL');
    // What the dead runner left: every run but the first of `before` still running under its lease.
    const left = await runsOf(Object.values(agents));
    expect(left.filter((run) => run.status === 'running')).toHaveLength(5);
    expect(mcp.calls.filter((call) => call.name === 'echo')).toHaveLength(1);

    await platform.startRunner();
    const ended = await waitFor(async () => {
      const rows = await runsOf(Object.values(agents));
      return rows.length === 6 && rows.every((run) => run.status === 'completed' || run.status === 'failed') ? rows : undefined;
    }, { timeoutMs: 90_000, intervalMs: 100, what: 'every run ended' });
    const byAgent = (id: string) => ended.filter((run) => run.agent_id === id);
    expect(byAgent(agents.write)).toEqual([expect.objectContaining({ status: 'failed', reason: 'runner_lost' })]);
    for (const id of [agents.model, agents.read, agents.final, agents.before]) {
      for (const run of byAgent(id)) {
        expect(run).toMatchObject({ status: 'completed', reason: null });
        expectWhole(await entriesOf(run.id));
      }
    }
    // The write ran once and is not repeated; the read ran again; the stored read of the model run was not.
    expect(mcp.calls.filter((call) => call.name === 'slow_write')).toHaveLength(1);
    expect(mcp.calls.filter((call) => call.name === 'slow')).toHaveLength(2);
    expect(mcp.calls.filter((call) => call.name === 'echo')).toHaveLength(1);
    const modelEntries = await entriesOf(modelRun!.id);
    expect(modelEntries.filter((entry) => entry.type === 'tool')).toHaveLength(1);
    const writeEntries = await entriesOf(byAgent(agents.write)[0]!.id);
    expect(writeEntries.filter((entry) => entry.type === 'notice' && entry.content.code === 'write_call_started')).toHaveLength(1);
    expect(writeEntries.filter((entry) => entry.type === 'tool')).toHaveLength(0);
    // Exactly once: one ending fact per run.
    await platform.settled();
    const endings = await pg!.query<{ subject_id: string; kind: string; n: number }>(
      `SELECT subject_id, kind, count(*)::int AS n FROM platform_events WHERE kind IN ('agent.run.completed', 'agent.run.failed') AND subject_id = ANY($1::text[]) GROUP BY 1, 2`,
      [ended.map((run) => run.id)],
    );
    expect(endings.rows).toHaveLength(6);
    expect(endings.rows.every((row) => row.n === 1)).toBe(true);
  });

  it('Redis stopped for 5 s while 50 runs execute: every run completes', async () => {
    // Not the shared Redis: one of the test's own, without persistence (it comes back empty, as after an outage).
    ownRedis = await RedisServer.start();
    const env = { REDIS_URL: ownRedis.url, RUNNER_CONCURRENCY: '30', RUNNER_SWEEP_INTERVAL_MS: '500', CLAIM_IDLE_MS: '1000' };
    platform = await startTestPlatform({ matcher: true, runners: 2, env });
    await connect();
    const token = await platform.createWorkspace('blip');
    const api = apiClient(platform.gatewayUrl, token);
    const agents: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await api('POST', '/v1/workspaces/blip/agents', scripted(`blip-${i}`, 'blip.go', 12, 1000, { concurrency: 10 }));
      expect(created.status).toBe(201);
      agents.push(created.body.id as string);
    }
    for (let i = 0; i < 10; i++) expect((await api('POST', '/v1/workspaces/blip/events', { kind: 'blip.go', subject: { type: 't', id: String(i) } })).status).toBe(202);
    await waitFor(async () => (await runsOf(agents)).filter((run) => run.status === 'running').length === 50 || undefined, { timeoutMs: 60_000, intervalMs: 50, what: '50 runs executing' });
    await ownRedis.down();
    const stoppedAt = Date.now();
    const retried = () => platform!.runners.every((runner) => /redis unavailable during a step; retrying the step/.test(runner.output()));
    await waitFor(async () => (Date.now() - stoppedAt >= 5000 && retried()) || undefined, { timeoutMs: 30_000, intervalMs: 100, what: 'each runner retrying steps, Redis down for 5 s' });
    await ownRedis.up();
    const rows = await waitFor(async () => {
      const all = await runsOf(agents);
      return all.length === 50 && all.every((run) => run.status !== 'running' && run.status !== 'queued') ? all : undefined;
    }, { timeoutMs: 120_000, intervalMs: 200, what: 'all 50 runs ended' });
    expect(rows.filter((run) => run.status !== 'completed')).toEqual([]);
  });
});
