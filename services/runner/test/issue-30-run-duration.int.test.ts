import { SqlPool } from '@switchyard/db';
import { apiClient, startLocalOpenAiServer, startTestMcpServer, startTestPlatform, waitFor } from '@switchyard/testing';
import type { LocalOpenAiServer, TestMcpHttpServer, TestPlatform } from '@switchyard/testing';
import { decideApproval, nextStop } from './approval-test-helpers';

/**
 * Issue 30 item 4 over real processes (gateway, event-log, matcher, runner): a run that runs past its
 * `budget.maxDurationMs` fails `duration_exceeded`, the model call in flight cut short; a run parked on
 * an approval for longer than its limit, having run less than it, completes (parked time not counted).
 */
jest.setTimeout(180_000);

describe('issue 30: a wall-clock limit per run', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let pool: SqlPool;
  let api: ReturnType<typeof apiClient>;
  let ws: string;
  let openai: LocalOpenAiServer;
  beforeAll(async () => {
    // A model that answers after 20 s: only the run's duration limit can end its call sooner.
    openai = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: 'too late', delayMs: 20_000 }) });
    const env = { RUNNER_MCP_ALLOW_PRIVATE: 'true', RUNNER_SWEEP_INTERVAL_MS: '500', CLAIM_IDLE_MS: '1000' };
    platform = await startTestPlatform({ matcher: true, env: { ...env, OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test-duration', MODEL_MAX_ATTEMPTS: '1', MODEL_TIMEOUT_MS: '30000' } });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    mcp = await startTestMcpServer();
    ws = `w${Math.random().toString(36).slice(2, 8)}`;
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace(ws));
    await platform.startRunner();
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
    await mcp?.close();
    await openai?.close();
  });

  const agent = async (name: string, kind: string, stepMs: number, script: unknown[], budget: Record<string, unknown>) =>
    api('POST', `/v1/workspaces/${ws}/agents`, {
      name,
      instructions: 'Act on the fact.',
      model: { provider: 'scripted', name: 'script', params: { stepMs } },
      script,
      triggers: [{ kind }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      budget,
    });
  const runOf = async (agentId: string, kind: string) => {
    expect((await api('POST', `/v1/workspaces/${ws}/events`, { kind, subject: { type: 't', id: kind } })).status).toBe(202);
    return waitFor(async () => (await pool.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM runs WHERE agent_id = $1::uuid`, agentId))[0]?.id, {
      timeoutMs: 30_000,
      intervalMs: 25,
      what: `the run of ${kind}`,
    });
  };
  type Row = { status: string; reason: string | null; error: any; outcome: any; resumes: number };
  const ended = (runId: string) =>
    waitFor(
      async () => {
        const [row] = await pool.$queryRawUnsafe<Row[]>(`SELECT status::text AS status, reason, error, outcome, resumes FROM runs WHERE id = $1::uuid`, runId);
        return row && ['completed', 'failed', 'cancelled'].includes(row.status) ? row : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 25, what: `run ${runId} ended` },
    );
  const notices = async (runId: string) =>
    (await pool.$queryRawUnsafe<Array<{ content: any }>>(`SELECT content FROM transcript_entries WHERE run_id = $1::uuid AND type = 'notice' ORDER BY seq`, runId)).map((entry) => entry.content);

  it('refuses a maxDurationMs out of bounds with a 400', async () => {
    const response = await agent('too-short', 'dur.bad', 0, [{ say: 'hi' }], { maxDurationMs: 10 });
    expect(response.status).toBe(400);
  });

  it('a run past maxDurationMs ends failed duration_exceeded, the call in flight cut short', async () => {
    // Ten answers of 400 ms each would take 4 s; the limit is 1 s: the third call is cut at about 1 s.
    const script = Array.from({ length: 10 }, (_, i) => ({ say: `step ${i}` }));
    const created = await agent('slow', 'dur.slow', 400, script, { maxDurationMs: 1_000 });
    expect(created.status).toBe(201);
    const started = Date.now();
    const run = await runOf(created.body.id as string, 'dur.slow');
    const row = await ended(run);
    expect(row).toMatchObject({ status: 'failed', reason: 'duration_exceeded', error: { code: 'duration_exceeded' } });
    expect(row.outcome.turns).toBeLessThan(4);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await notices(run)).at(-1)).toMatchObject({ code: 'duration_exceeded' });
  });

  it('a run parked longer than its limit, having run less than it, completes: parked time does not count', async () => {
    const created = await agent(
      'parker',
      'dur.park',
      100,
      [{ say: 'asking', tool: 'web.echo', arguments: { text: 'x' } }, { say: 'done' }],
      { maxDurationMs: 1_500 },
    );
    expect(created.status).toBe(201);
    const run = await runOf(created.body.id as string, 'dur.park');
    const parked = await nextStop(pool, run);
    expect(parked.status).toBe('awaiting_approval');
    // Parked for longer than the whole limit before the decision.
    const parkedAt = Date.now();
    await waitFor(async () => Date.now() - parkedAt > 2_000 || undefined, { timeoutMs: 5_000, intervalMs: 100, what: 'the park outlasting the limit' });
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve')).toBe(200);
    const row = await ended(run);
    expect(row).toMatchObject({ status: 'completed', resumes: 1, outcome: { summary: 'done', turns: 2 } });
    const ran = (await notices(run)).filter((notice) => notice.code === 'execution_ran');
    expect(ran).toHaveLength(1);
    expect(ran[0].ranMs).toBeLessThan(1_500);
  });

  it('running time adds up across a park: 1.2 s before and 1.2 s after, each under a 2 s limit, fail duration_exceeded', async () => {
    const say = (text: string) => ({ say: text });
    const created = await agent('summed', 'dur.sum', 400, [say('a'), say('b'), { say: 'asking', tool: 'web.echo', arguments: { text: 'y' } }, say('c'), say('d'), say('done')], {
      maxDurationMs: 2_000,
    });
    expect(created.status).toBe(201);
    const run = await runOf(created.body.id as string, 'dur.sum');
    const parked = await nextStop(pool, run);
    expect(parked.status).toBe('awaiting_approval');
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve')).toBe(200);
    const row = await ended(run);
    expect(row).toMatchObject({ status: 'failed', reason: 'duration_exceeded', resumes: 1 });
    expect(row.outcome.turns).toBeLessThan(6);
    const [ran] = (await notices(run)).filter((notice) => notice.code === 'execution_ran');
    expect(ran.ranMs).toBeGreaterThanOrEqual(1_200);
  });

  it('a call of the real openai client to a slow model is cut at the limit: duration_exceeded, not model_aborted', async () => {
    const response = await api('POST', `/v1/workspaces/${ws}/agents`, {
      name: 'slow-openai',
      instructions: 'Act on the fact.',
      model: { provider: 'openai', name: 'slow' },
      triggers: [{ kind: 'dur.openai' }],
      budget: { maxDurationMs: 1_000 },
    });
    expect(response.status).toBe(201);
    const started = Date.now();
    const row = await ended(await runOf(response.body.id as string, 'dur.openai'));
    expect(row).toMatchObject({ status: 'failed', reason: 'duration_exceeded', outcome: { turns: 0 } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("an agent that sets no maxDurationMs gets the runner's RUNNER_MAX_RUN_DURATION_MS", async () => {
    await Promise.all(platform.runners.splice(0).map((runner) => runner.stop('SIGTERM')));
    await platform.startRunner({ RUNNER_MAX_RUN_DURATION_MS: '1000' });
    const script = Array.from({ length: 10 }, (_, i) => ({ say: `step ${i}` }));
    const created = await agent('defaulted', 'dur.default', 400, script, {});
    expect(created.status).toBe(201);
    const row = await ended(await runOf(created.body.id as string, 'dur.default'));
    expect(row).toMatchObject({ status: 'failed', reason: 'duration_exceeded' });
    expect(row.outcome.turns).toBeLessThan(4);
  });
});
