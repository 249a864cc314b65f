import { Client } from 'pg';
import { RunTraceSchema, type RunTrace, type TraceSpan } from '@switchyard/contracts';
import {
  apiClient,
  spawnService,
  startLocalOpenAiServer,
  startLocalOtlpReceiver,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalOpenAiServer,
  type LocalOtlpReceiver,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 35 §6, run traces, against real processes: the gateway, event-log, approvals,
 * matcher, a runner and a notifier whose `traces` group exports each ended
 * run over OTLP/HTTP to a local receiver. A run parks on each of its two tool
 * calls, is approved twice and finishes: the receiver gets its run span
 * with model calls (token counts), tool calls and the approval under it —
 * after the collector first refused — and `GET /runs/{id}/trace` serves the
 * same tree with the same ids.
 */
describe('issue 35: run traces', () => {
  const ws = '/v1/workspaces/acme';
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let receiver: LocalOtlpReceiver;
  let openai: LocalOpenAiServer;
  let notifier: ServiceProcess;
  let pg: Client;
  let admin: Api;
  let viewer: Api;
  let otherAdmin: Api;

  beforeAll(async () => {
    mcp = await startTestMcpServer();
    receiver = await startLocalOtlpReceiver();
    // The model asks for two tool calls, one at a time, then answers; each answer reports its tokens.
    openai = await startLocalOpenAiServer({
      replies: [
        { type: 'message', toolCalls: [{ name: 'web__echo', arguments: { text: 'hello' } }], usage: { prompt_tokens: 120, completion_tokens: 8 } },
        { type: 'message', toolCalls: [{ name: 'web__delete_everything', arguments: {} }], usage: { prompt_tokens: 150, completion_tokens: 9 } },
        { type: 'message', content: 'done', usage: { prompt_tokens: 170, completion_tokens: 2 } },
      ],
    });
    platform = await startTestPlatform({
      matcher: true,
      approvals: true,
      env: { RUNNER_MCP_ALLOW_PRIVATE: 'true', CLAIM_IDLE_MS: '1000', OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test-traces' },
    });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    notifier = await spawnService(
      'notifier',
      { ...platform.env, NOTIFIER_HEALTH_PORT: '0', NOTIFIER_CONSUMER: `n-${Date.now()}`, CLAIM_IDLE_MS: '1000', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector' },
      { readyPattern: /notifier started/ },
    );
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const token = await platform.createWorkspace('acme');
    admin = apiClient(platform.gatewayUrl, token);
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token as string);
    otherAdmin = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
  }, 180_000);
  afterAll(async () => {
    await pg?.end();
    await notifier?.stop();
    await platform?.stop();
    await receiver?.close();
    await openai?.close();
    await mcp?.close();
  });

  const tree = (spans: Pick<TraceSpan, 'spanId' | 'parentSpanId' | 'name'>[]) => spans.map((s) => `${s.parentSpanId ?? '-'} ${s.spanId} ${s.name}`).sort();

  it('exports an ended run as a run span with its model calls, tool calls and approval, and serves the same tree', async () => {
    const created = await admin('POST', `${ws}/agents`, {
      name: 'tracer',
      instructions: 'Look, then clean up.',
      model: { provider: 'openai', name: 'local-model' },
      triggers: [{ kind: 'never.happens' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      permissionMode: 'default',
    });
    expect(created.status).toBe(201);
    const started = await admin('POST', `${ws}/agents/${created.body.id}/runs`, { input: 'go' });
    expect(started.status).toBe(201);
    const runId = started.body.id as string;
    // Each tool call of a server the workspace has not marked trusted parks in mode `default`: approve them one by one.
    const approveNext = async () => {
      const id = await waitFor(async () => (await pg.query(`SELECT id::text FROM approvals WHERE run_id = $1 AND status = 'pending'`, [runId])).rows[0]?.id as string | undefined, {
        timeoutMs: 60_000,
        what: 'a parked approval',
      });
      expect((await admin('POST', `${ws}/approvals/${id}/decision`, { decision: 'approve' })).status).toBe(200);
    };
    await approveNext();
    // The collector refuses at first: the export is retried, not lost.
    receiver.failWith = 503;
    await approveNext();
    let seen = '';
    await waitFor(
      async () => {
        const { status, reason } = (await pg.query(`SELECT status::text, reason FROM runs WHERE id = $1`, [runId])).rows[0];
        seen = `${status} ${JSON.stringify((await pg.query(`SELECT status, decided_at FROM approvals WHERE run_id = $1`, [runId])).rows)}`;
        if (status === 'failed' || status === 'cancelled') throw new Error(`the run ended ${status} (${reason})`);
        return status === 'completed';
      },
      { timeoutMs: 60_000, get what() { return `the run completed (${seen})`; } },
    );
    await waitFor(async () => receiver.requests.length > 0, { timeoutMs: 30_000, what: 'a refused export' });
    receiver.failWith = null;
    const traceId = runId.replaceAll('-', '');
    const exported = await waitFor(async () => {
      const spans = receiver.spans.filter((span) => span.traceId === traceId);
      return spans.some((span) => span.name.startsWith('run ')) ? spans : undefined;
    }, { timeoutMs: 30_000, what: 'the run trace at the receiver' });
    expect(receiver.requests.at(-1)).toMatchObject({ path: '/v1/traces', headers: expect.objectContaining({ authorization: 'Bearer collector' }) });

    const served = await viewer('GET', `${ws}/runs/${runId}/trace`);
    expect(served.status).toBe(200);
    const trace: RunTrace = RunTraceSchema.parse(served.body);
    expect(trace).toMatchObject({ traceId, runId, truncated: false });
    // Notices (a park's execution_ran) are points on the run; the calls and approvals in their order:
    expect(trace.root.children.filter((span) => span.kind !== 'notice').map((span) => span.kind)).toEqual(['model_call', 'approval', 'tool_call', 'model_call', 'approval', 'tool_call', 'model_call']);
    expect(trace.root.children.filter((s) => s.kind === 'approval').map((s) => [s.name, s.status])).toEqual([['approval web.echo', 'ok'], ['approval web.delete_everything', 'ok']]);
    expect(trace.root.children.filter((s) => s.kind === 'tool_call').map((s) => s.attributes['gen_ai.tool.name'])).toEqual(['web.echo', 'web.delete_everything']);
    expect(trace.root.children.filter((s) => s.kind === 'model_call').map((s) => [s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens'], s.attributes['gen_ai.request.model']])).toEqual([
      [120, 8, 'local-model'],
      [150, 9, 'local-model'],
      [170, 2, 'local-model'],
    ]);
    expect(trace.root.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 440, 'gen_ai.usage.output_tokens': 19, 'switchyard.run.status': 'completed' });
    // The same spans (each once, whatever the retries sent) with the same parents, names and token counts.
    const unique = [...new Map(exported.map((span) => [span.spanId, span])).values()];
    expect(tree(unique.map((span) => ({ spanId: span.spanId, parentSpanId: span.parentSpanId || null, name: span.name })))).toEqual(tree([trace.root, ...trace.root.children]));
    for (const span of [trace.root, ...trace.root.children]) {
      const sent = unique.find((s) => s.spanId === span.spanId)!;
      expect(sent.attributes['gen_ai.usage.input_tokens']).toBe(span.attributes['gen_ai.usage.input_tokens']);
      expect(sent.attributes['gen_ai.usage.output_tokens']).toBe(span.attributes['gen_ai.usage.output_tokens']);
      expect(sent.serviceName).toBe('switchyard');
    }
  }, 180_000);

  it('refuses another workspace’s run and an unknown one alike, and a malformed id with a 400', async () => {
    const [run] = (await pg.query(`SELECT id::text FROM runs LIMIT 1`)).rows;
    expect((await otherAdmin('GET', `/v1/workspaces/other/runs/${run.id}/trace`)).body.error.code).toBe('RUN_NOT_FOUND');
    expect((await admin('GET', `${ws}/runs/0192f5a4-0000-7000-8000-000000000000/trace`)).status).toBe(404);
    const bad = await admin('GET', `${ws}/runs/not-a-uuid/trace`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });
});
