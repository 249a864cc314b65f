import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  apiClient,
  startLocalOpenAiServer,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalOpenAiReply,
  type LocalOpenAiServer,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';

/**
 * Issue 13, items 4–6: what a run reports. Real gateway, event-log and runner
 * processes, the real `openai` client against a local OpenAI-compatible
 * server and a real MCP server over HTTP. A retried manual run keeps its
 * input; refused and failed tool calls are counted apart from the ok ones and
 * can be filtered on; an unpriced model is marked so and held by
 * `budget.maxTokens`; the runner's `/metrics` shows model and tool calls.
 */
jest.setTimeout(120_000);

const WS = 'reports';

describe('issue 13: what a run reports (real processes)', () => {
  let platform: TestPlatform;
  let runner: ServiceProcess;
  let openai: LocalOpenAiServer;
  let mcp: TestMcpHttpServer;
  let api: ReturnType<typeof apiClient>;
  let token: string;
  const replies: LocalOpenAiReply[] = [];

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({
      respond: () => replies.shift() ?? { type: 'error', status: 400, body: { error: { message: 'no reply left' } } },
    });
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({
      env: {
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_API_KEY: 'sk-test-reports',
        MODEL_MAX_ATTEMPTS: '1',
        MODEL_PRICES: JSON.stringify({ 'priced-*': { input: 1, output: 2 } }),
        RUNNER_MCP_ALLOW_PRIVATE: 'true',
      },
    });
    runner = await platform.startRunner();
    token = await platform.createWorkspace(WS);
    api = apiClient(platform.gatewayUrl, token);
  });

  afterAll(async () => {
    await platform?.stop();
    await mcp?.close();
    await openai?.close();
  });

  const createAgent = async (name: string, spec: Record<string, unknown>) => {
    const created = await api('POST', `/v1/workspaces/${WS}/agents`, {
      name,
      instructions: 'Report.',
      triggers: [{ kind: 'never.happens' }],
      permissionMode: 'bypass',
      ...spec,
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  const ended = async (runId: string) => {
    let run: any;
    await waitFor(
      async () => {
        run = (await api('GET', `/v1/workspaces/${WS}/runs/${runId}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(run.status);
      },
      { timeoutMs: 60_000, intervalMs: 50, what: `run ${runId} ended` },
    );
    return run;
  };

  const startRun = async (agentId: string, input: string) => {
    const started = await api('POST', `/v1/workspaces/${WS}/agents/${agentId}/runs`, { input });
    expect(started.status).toBe(201);
    return ended(started.body.id as string);
  };

  const retry = async (runId: string) => {
    const retried = await api('POST', `/v1/workspaces/${WS}/runs/${runId}/retry`);
    expect(retried.status).toBe(201);
    return ended(retried.body.id as string);
  };

  const firstUserText = async (runId: string) => {
    const entries = (await api('GET', `/v1/workspaces/${WS}/runs/${runId}/transcript`)).body.entries as any[];
    return entries.find((entry) => entry.type === 'user')?.content.text as string;
  };

  it('a retry of a manual run — and a retry of that retry — renders the same input, in the first message and in {{input}}', async () => {
    const agentId = await createAgent('echoer', { model: { provider: 'scripted', name: 'script' }, script: [{ say: 'you said: {{input}}' }] });
    const original = await startRun(agentId, 'rebuild the index');
    expect(original.outcome.summary).toBe('you said: rebuild the index');
    const retried = await retry(original.id);
    expect(retried).toMatchObject({ status: 'completed', origin: { type: 'retry', retryOf: original.id, input: 'rebuild the index' } });
    expect(retried.outcome.summary).toBe('you said: rebuild the index');
    expect(await firstUserText(retried.id)).toBe('rebuild the index');
    const again = await retry(retried.id);
    expect(again.origin).toMatchObject({ retryOf: retried.id, input: 'rebuild the index' });
    expect(await firstUserText(again.id)).toBe('rebuild the index');
    expect(again.outcome.summary).toBe('you said: rebuild the index');
  });

  it('tool calls are counted by result (ok, refused, failed) beside the total, and GET /runs filters on a result', async () => {
    const web = { name: 'web', transport: 'http', url: mcp.url };
    const tools = { mcpServers: [web] };
    const mixedId = await createAgent('mixed', {
      model: { provider: 'scripted', name: 'script' },
      tools,
      rules: { deny: ['web.delete_everything'] },
      script: [
        { tool: 'web.echo', arguments: { text: 'hi' } },
        { tool: 'web.delete_everything' },
        { tool: 'web.no_such_tool' },
        { tool: 'web.fail', arguments: { message: 'boom' } },
        { say: 'done' },
      ],
    });
    const cleanId = await createAgent('clean', { model: { provider: 'scripted', name: 'script' }, tools, script: [{ tool: 'web.echo', arguments: { text: 'hi' } }, { say: 'ok' }] });
    const mixed = await startRun(mixedId, 'go');
    const clean = await startRun(cleanId, 'go');
    expect(mixed.outcome).toMatchObject({ toolCalls: 4, toolCallsByResult: { ok: 1, refused: 2, failed: 1 } });
    expect(mixed.outcome.unpriced).toBeUndefined();
    expect(clean.outcome).toMatchObject({ toolCalls: 1, toolCallsByResult: { ok: 1, refused: 0, failed: 0 } });

    const ids = async (query: string) => {
      const listed = await api('GET', `/v1/workspaces/${WS}/runs?${query}`);
      expect(listed.status).toBe(200);
      return (listed.body.runs as any[]).map((run) => run.id);
    };
    expect(await ids('toolResult=refused')).toEqual([mixed.id]);
    expect(await ids('toolResult=failed')).toEqual([mixed.id]);
    expect(await ids('toolResult=ok')).toEqual([clean.id, mixed.id]);
    expect(await ids(`toolResult=ok&agentId=${cleanId}`)).toEqual([clean.id]);
    const bad = await api('GET', `/v1/workspaces/${WS}/runs?toolResult=maybe`);
    expect(bad.status).toBe(400);

    // The platform MCP tool list_runs takes the same filter.
    const client = new Client({ name: 'issue-13', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', platform.gatewayUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const result = (await client.callTool({ name: 'list_runs', arguments: { toolResult: 'refused' } })) as { content: Array<{ text?: string }> };
      expect((JSON.parse(result.content[0]!.text!).runs as any[]).map((run) => run.id)).toEqual([mixed.id]);
    } finally {
      await client.close();
    }
  });

  it('a model missing from the price table is marked unpriced, and budget.maxTokens holds for it: budget_exceeded after one call over', async () => {
    const agentId = await createAgent('unpriced', {
      model: { provider: 'openai', name: 'local-llama' },
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      budget: { maxTokens: 1000 },
    });
    const call = (id: string): LocalOpenAiReply => ({
      type: 'message',
      content: null,
      toolCalls: [{ id, name: 'web__echo', arguments: { text: id } }],
      usage: { prompt_tokens: 500, completion_tokens: 100 },
    });
    replies.push(call('c1'), call('c2'), call('c3'));
    const run = await startRun(agentId, 'use tokens');
    expect(run).toMatchObject({ status: 'failed', reason: 'budget_exceeded', error: { code: 'budget_exceeded' } });
    // 600 tokens, then 1200 > 1000: the second call is the one over, and no third is made.
    expect(run.outcome).toMatchObject({ turns: 2, tokensIn: 1000, tokensOut: 200, costUsd: 0, unpriced: true, toolCallsByResult: { ok: 1, refused: 0, failed: 0 } });
    expect(replies).toHaveLength(1);
    replies.length = 0;
  });

  it("the runner's /metrics counts model calls, tokens, cost and latency by provider and model, model errors by code and tool calls by server, tool and result", async () => {
    const agentId = await createAgent('metered', { model: { provider: 'openai', name: 'priced-m' }, tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] } });
    replies.push(
      { type: 'message', content: null, toolCalls: [{ id: 'x', name: 'web__echo', arguments: { text: 'x' } }, { id: 'y', name: 'made_up', arguments: {} }], usage: { prompt_tokens: 1000, completion_tokens: 500 } },
      { type: 'message', content: 'fine', toolCalls: [], usage: { prompt_tokens: 10, completion_tokens: 5 } },
    );
    expect(await startRun(agentId, 'count me')).toMatchObject({ status: 'completed' });
    // No reply left: the local server answers 400, a model_bad_request.
    expect(await startRun(agentId, 'fail me')).toMatchObject({ status: 'failed', reason: 'model_bad_request' });

    const healthPort = /"healthPort":(\d+)/.exec(runner.output())?.[1];
    const text = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}.()]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const model = 'provider="openai",model="priced-m"';
    expect(value(`switchyard_runner_model_calls_total{${model}}`)).toBe(2);
    expect(value(`switchyard_runner_model_tokens_total{${model},direction="in"}`)).toBe(1010);
    expect(value(`switchyard_runner_model_tokens_total{${model},direction="out"}`)).toBe(505);
    expect(value(`switchyard_runner_model_cost_usd_total{${model}}`)).toBeCloseTo((1010 * 1 + 505 * 2) / 1e6, 9);
    expect(value(`switchyard_runner_model_call_duration_seconds_count{${model}}`)).toBe(2);
    expect(value(`switchyard_runner_model_errors_total{${model},code="model_bad_request"}`)).toBe(1);
    expect(value('switchyard_runner_tool_calls_total{server="web",tool="web.echo",result="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('switchyard_runner_tool_calls_total{server="(unknown)",tool="(unknown)",result="refused"}')).toBeGreaterThanOrEqual(1);
    expect(value('switchyard_runner_runs_total{status="failed",reason="model_bad_request"}')).toBe(1);
    expect(value('switchyard_runner_runs_total{status="failed",reason="budget_exceeded"}')).toBe(1);
    // Tool arguments never become labels.
    expect(text).not.toContain('count me');
    expect(text).not.toMatch(/tool_calls_total\{[^}]*made_up/);
  });
});
