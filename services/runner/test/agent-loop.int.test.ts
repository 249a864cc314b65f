import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { newSecretsKey } from '@switchyard/core';
import {
  apiClient,
  readTestMcpLog,
  startLocalOpenAiServer,
  startTestMcpServer,
  startTestPlatform,
  TEST_MCP_INJECTION,
  testMcpStdioCommand,
  waitFor,
  type LocalOpenAiReply,
  type LocalOpenAiRequest,
  type LocalOpenAiServer,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';

/**
 * The agent loop end to end: real gateway, event-log, matcher and runner
 * processes; the real `openai` client against a local OpenAI-compatible
 * server; real MCP servers over Streamable HTTP and stdio; the platform's own
 * tools at the gateway's `/mcp` with the run's agent token.
 */
jest.setTimeout(120_000);

const API_KEY = 'sk-test-loop-0123456789';
const MCP_TOKEN = 'mcp-bearer-secret-42';

/** Answers each agent (told apart by its model name) from its own queue, and records its requests. */
class ModelRouter {
  private readonly queues = new Map<string, LocalOpenAiReply[]>();
  readonly requests = new Map<string, LocalOpenAiRequest[]>();

  script(model: string, replies: LocalOpenAiReply[]): void {
    this.queues.set(model, [...replies]);
    this.requests.set(model, []);
  }

  respond = (request: LocalOpenAiRequest): LocalOpenAiReply => {
    const model = request.body?.model ?? '';
    this.requests.get(model)?.push(request);
    return this.queues.get(model)?.shift() ?? { type: 'error', status: 400, body: { error: { message: `no reply left for ${model}` } } };
  };

  of(model: string): LocalOpenAiRequest[] {
    return this.requests.get(model) ?? [];
  }
}

const message = (content: string | null, toolCalls: Array<{ id: string; name: string; arguments: string | Record<string, unknown> }> = [], usage = { prompt_tokens: 0, completion_tokens: 0 }): LocalOpenAiReply => ({
  type: 'message',
  content,
  toolCalls,
  usage,
});

describe('agent loop (real processes, real openai client, real MCP servers)', () => {
  let platform: TestPlatform;
  let pg: Client;
  let openai: LocalOpenAiServer;
  let mcp: TestMcpHttpServer;
  let api: ReturnType<typeof apiClient>;
  let token: string;
  const router = new ModelRouter();
  const stdioLog = path.join(mkdtempSync(path.join(tmpdir(), 'sy-loop-')), 'stdio.jsonl');

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({ respond: router.respond });
    mcp = await startTestMcpServer({ bearerToken: MCP_TOKEN });
    platform = await startTestPlatform({
      matcher: true,
      env: {
        SECRETS_KEY: newSecretsKey(),
        OPENAI_BASE_URL: openai.baseUrl,
        MODEL_MAX_ATTEMPTS: '1',
        MODEL_PRICES: JSON.stringify({ 'm-*': { input: 1, output: 2 }, 'm-costly': { input: 1000, output: 0 } }),
        RUNNER_MCP_ALLOW_PRIVATE: 'true',
        RUNNER_MCP_STDIO_COMMANDS: process.execPath,
        RUNNER_MCP_CALL_TIMEOUT_MS: '1000',
        // The stdio server starts through tsx: under the other jest worker's load it took over 5 s.
        RUNNER_MCP_CONNECT_TIMEOUT_MS: '20000',
      },
    });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    token = await platform.createWorkspace('loop');
    api = apiClient(platform.gatewayUrl, token);
    expect((await api('PUT', '/v1/workspaces/loop/secrets/openai-key', { value: API_KEY })).status).toBe(201);
    expect((await api('PUT', '/v1/workspaces/loop/secrets/mcp-auth', { value: `Bearer ${MCP_TOKEN}` })).status).toBe(201);
  });

  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await mcp?.close();
    await openai?.close();
    rmSync(path.dirname(stdioLog), { recursive: true, force: true });
  });

  const stdio = testMcpStdioCommand(stdioLog);
  const servers = {
    web: { name: 'web', transport: 'http', url: '', headers: { Authorization: { secret: 'mcp-auth' } } },
    local: { name: 'local', transport: 'stdio', command: stdio.command, args: stdio.args },
  };

  /** Creates an agent on model `model` woken by `kind`; returns its id. */
  const agent = async (model: string, kind: string, extra: Record<string, unknown> = {}) => {
    const created = await api('POST', '/v1/workspaces/loop/agents', {
      name: model,
      instructions: `You are ${model}. Act on the fact.`,
      task: 'Handle the ticket.',
      model: { provider: 'openai', name: model, apiKeySecret: 'openai-key' },
      tools: { mcpServers: [{ ...servers.web, url: mcp.url }] },
      triggers: [{ kind }],
      permissionMode: 'bypass',
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  const post = async (kind: string, id = 'T-1') => {
    const posted = await api('POST', '/v1/workspaces/loop/events', { kind, subject: { type: 'ticket', id }, payload: { title: 'Printer on fire' } });
    expect(posted.status).toBe(202);
    return posted.body.id as string;
  };

  const runOf = async (agentId: string, statuses: string[] = ['completed', 'failed', 'cancelled']) => {
    let run: any;
    await waitFor(
      async () => {
        const listed = await api('GET', `/v1/workspaces/loop/runs?agentId=${agentId}`);
        run = listed.body.runs?.[0];
        return run !== undefined && statuses.includes(run.status);
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `a run of ${agentId} in ${statuses.join('|')}` },
    );
    return run;
  };

  const transcript = async (runId: string) => (await api('GET', `/v1/workspaces/loop/runs/${runId}/transcript?limit=500`)).body.entries as any[];

  it('a fact → a run → tool calls over HTTP and stdio MCP → a final answer; transcript and outcome as scripted', async () => {
    const id = await agent('m-main', 'ticket.opened', { tools: { mcpServers: [{ ...servers.web, url: mcp.url }, servers.local] } });
    router.script('m-main', [
      message(null, [
        { id: 'c1', name: 'web__echo', arguments: { text: 'hello from the model' } },
        { id: 'c2', name: 'local__add', arguments: { a: 2, b: 3 } },
      ], { prompt_tokens: 100, completion_tokens: 10 }),
      message('All done: 5', [], { prompt_tokens: 200, completion_tokens: 20 }),
    ]);
    const factId = await post('ticket.opened');
    const run = await runOf(id);
    expect(run).toMatchObject({
      status: 'completed',
      outcome: { summary: 'All done: 5', turns: 2, toolCalls: 2, tokensIn: 300, tokensOut: 30, costUsd: (300 * 1 + 30 * 2) / 1e6 },
    });

    const [first, second] = router.of('m-main');
    expect(router.of('m-main')).toHaveLength(2);
    // The key is the workspace secret, sent to the model endpoint only.
    expect(first!.authorization).toBe(`Bearer ${API_KEY}`);
    const firstMessages = first!.body!.messages;
    expect(firstMessages[0]).toMatchObject({ role: 'system' });
    expect(String(firstMessages[0]!.content)).toContain('You are m-main. Act on the fact.');
    expect(firstMessages[1]).toMatchObject({ role: 'user' });
    expect(String(firstMessages[1]!.content)).toContain('Handle the ticket.');
    expect(String(firstMessages[1]!.content)).toContain('[event ticket.opened — ticket T-1]');
    expect(String(firstMessages[1]!.content)).toContain(factId);
    expect((first!.body!.tools ?? []).map((tool: any) => tool.function.name).sort()).toEqual(
      expect.arrayContaining(['local__add', 'local__echo', 'web__echo', 'web__slow']),
    );
    // The second request carries the tool calls and both results, as delimited data.
    const toolMessages = second!.body!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    expect(String(toolMessages[0]!.content)).toMatch(/^<untrusted-data source="tool web\.echo">\n[\s\S]*hello from the model[\s\S]*<\/untrusted-data>$/);
    expect(String(toolMessages[1]!.content)).toContain('5');

    expect(mcp.calls.filter((call) => call.name === 'echo').map((call) => call.arguments)).toContainEqual({ text: 'hello from the model' });
    expect(readTestMcpLog(stdioLog).calls).toContainEqual(expect.objectContaining({ name: 'add', arguments: { a: 2, b: 3 } }));

    const entries = await transcript(run.id);
    expect(entries.map((entry) => entry.type)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(entries[2].content).toMatchObject({ usage: { inputTokens: 100, outputTokens: 10 }, costUsd: 0.00012 });
    expect(entries[3].content).toMatchObject({ toolCallId: 'c1', name: 'web.echo', arguments: { text: 'hello from the model' }, ok: true });
    expect(entries[4].content).toMatchObject({ toolCallId: 'c2', name: 'local.add', arguments: { a: 2, b: 3 }, ok: true });
    expect(entries[5].content).toMatchObject({ text: 'All done: 5', toolCalls: [] });
    // Secrets never reach the transcript.
    const text = JSON.stringify(entries);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(MCP_TOKEN);
  });

  it('a message posted to the session while a tool runs reaches the model at the next step, attributed; an injected tool result stays data', async () => {
    const id = await agent('m-steer', 'ticket.steer');
    router.script('m-steer', [
      message(null, [{ id: 's1', name: 'web__slow', arguments: { ms: 700 } }]),
      message(null, [{ id: 's2', name: 'web__inject', arguments: {} }]),
      message('steered'),
    ]);
    const slowCalls = mcp.calls.filter((call) => call.name === 'slow').length;
    await post('ticket.steer');
    const running = await runOf(id, ['running']);
    await waitFor(async () => mcp.calls.filter((call) => call.name === 'slow').length > slowCalls, { timeoutMs: 30_000, intervalMs: 20, what: 'the slow tool called' });
    const sent = await api('POST', `/v1/workspaces/loop/sessions/${running.sessionId}/messages`, { content: 'Please also check the logs.' });
    expect(sent.status).toBe(202);
    const run = await runOf(id);
    expect(run).toMatchObject({ status: 'completed', outcome: { summary: 'steered', turns: 3, toolCalls: 2 } });

    const [first, second, third] = router.of('m-steer');
    // After the slow tool's result, the person's message, verbatim, as a user message.
    const afterTool = second!.body!.messages.slice(-2);
    expect(afterTool[0]).toMatchObject({ role: 'tool', tool_call_id: 's1' });
    expect(afterTool[1]).toEqual({ role: 'user', content: 'Please also check the logs.' });
    // The injection: the system prompt is unchanged and the result arrives delimited, as a tool message.
    expect(third!.body!.messages[0]).toEqual(first!.body!.messages[0]);
    const injected = third!.body!.messages.at(-1)!;
    expect(injected).toMatchObject({ role: 'tool', tool_call_id: 's2' });
    expect(String(injected.content)).toMatch(/^<untrusted-data source="tool web\.inject">/);
    expect(String(injected.content)).toContain(TEST_MCP_INJECTION);
    expect(String(third!.body!.messages[0]!.content)).not.toContain(TEST_MCP_INJECTION);
    expect(mcp.calls.some((call) => call.name === 'delete_everything')).toBe(false);

    // Read once: in the conversation, in the transcript, and gone from the mailbox.
    expect(third!.body!.messages.filter((m) => m.content === 'Please also check the logs.')).toHaveLength(1);
    const entries = await transcript(run.id);
    const steering = entries.filter((entry) => entry.type === 'user' && entry.content.text === 'Please also check the logs.');
    expect(steering).toHaveLength(1);
    expect(steering[0].content.from).toMatchObject({ type: 'user' });
    expect(await platform.redis.redis.xlen(`${platform.redis.prefix}:mailbox:${running.sessionId}`)).toBe(0);
  });

  it('a message posted to the session of a run waiting behind its agent\'s running run reaches that run\'s first turn, read once', async () => {
    const id = await agent('m-handoff', 'ticket.handoff');
    router.script('m-handoff', [
      message(null, [{ id: 'h1', name: 'web__slow', arguments: { ms: 700 } }]),
      message(null, [{ id: 'h2', name: 'web__slow', arguments: { ms: 700 } }]),
      message('first done'),
      message('second done'),
    ]);
    // Both facts at once: the first run's lane sees the second waiting as it claims, so when the
    // first run ends it hands its slot to the second (concurrency 1), which drains its mailbox
    // at its first step boundary.
    const both = await api('POST', '/v1/workspaces/loop/events:batch', {
      events: ['H-1', 'H-2'].map((ticket) => ({ kind: 'ticket.handoff', subject: { type: 'ticket', id: ticket }, payload: { title: 'Printer on fire' } })),
    });
    expect(both.status).toBe(202);
    // The first run running (its tools take 1.4 s), the second queued behind it.
    let waiting: any;
    await waitFor(
      async () => {
        const runs = (await api('GET', `/v1/workspaces/loop/runs?agentId=${id}`)).body.runs ?? [];
        waiting = runs.find((run: any) => run.status === 'queued');
        return runs.length === 2 && runs.some((run: any) => run.status === 'running') && waiting !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 20, what: 'one run running, the other queued' },
    );
    expect((await api('POST', `/v1/workspaces/loop/sessions/${waiting.sessionId}/messages`, { content: 'Mind the second printer.' })).status).toBe(202);
    await waitFor(async () => (await api('GET', `/v1/workspaces/loop/runs/${waiting.id}`)).body.status === 'completed', { timeoutMs: 60_000, intervalMs: 100, what: 'the second run completed' });
    const requests = router.of('m-handoff');
    expect(requests).toHaveLength(4);
    const secondFirstTurn = requests[3]!.body!.messages;
    expect(secondFirstTurn.filter((m) => m.content === 'Mind the second printer.')).toHaveLength(1);
    expect(requests.slice(0, 3).some((request) => request.body!.messages.some((m) => m.content === 'Mind the second printer.'))).toBe(false);
    expect(await platform.redis.redis.xlen(`${platform.redis.prefix}:mailbox:${waiting.sessionId}`)).toBe(0);
  });

  it('a server that is down, a slow tool, a malformed result, an unknown tool and arguments that are not JSON: recorded, and the run goes on', async () => {
    const id = await agent('m-faults', 'ticket.faults', {
      tools: { mcpServers: [{ ...servers.web, url: mcp.url }, { name: 'down', transport: 'http', url: 'http://127.0.0.1:9/mcp' }] },
    });
    router.script('m-faults', [
      message(null, [
        { id: 'f1', name: 'down__echo', arguments: { text: 'x' } },
        { id: 'f2', name: 'web__echo', arguments: '{"text": "unterminated' },
        { id: 'f3', name: 'web__slow', arguments: { ms: 5000 } },
        { id: 'f4', name: 'web__malformed', arguments: {} },
        { id: 'f5', name: 'web__fail', arguments: { message: 'boom' } },
      ]),
      message('recovered'),
    ]);
    await post('ticket.faults');
    const run = await runOf(id);
    expect(run).toMatchObject({ status: 'completed', outcome: { summary: 'recovered', toolCalls: 5 } });
    const entries = await transcript(run.id);
    expect(entries.find((entry) => entry.type === 'notice')?.content).toMatchObject({ code: 'connect_failed' });
    const errors = Object.fromEntries(entries.filter((entry) => entry.type === 'tool').map((entry) => [entry.content.toolCallId, entry.content.error?.code]));
    expect(errors).toEqual({ f1: 'tool_unknown', f2: 'tool_arguments_invalid', f3: 'tool_timeout', f4: 'tool_result_invalid', f5: 'tool_failed' });
    // The model was told each error with its code.
    const told = router.of('m-faults')[1]!.body!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(told[0]).toMatch(/^\[tool error tool_unknown\]/);
    expect(told[2]).toMatch(/^\[tool error tool_timeout\]/);
  });

  it('maxTurns reached, the run budget exceeded, a stop request, a model refusing the key: each ends the run with its code', async () => {
    const turns = await agent('m-turns', 'ticket.turns', { budget: { maxTurns: 2 } });
    router.script('m-turns', [1, 2, 3].map((n) => message(null, [{ id: `t${n}`, name: 'web__echo', arguments: { text: String(n) } }])));
    const costly = await agent('m-costly', 'ticket.costly', { budget: { perRunUsd: 0.5, perDayUsd: 5 } });
    router.script('m-costly', [message(null, [{ id: 'k1', name: 'web__echo', arguments: { text: 'a' } }], { prompt_tokens: 1000, completion_tokens: 0 }), message('never')]);
    const stopped = await agent('m-stop', 'ticket.stop');
    router.script('m-stop', [message(null, [{ id: 'p1', name: 'web__slow', arguments: { ms: 900 } }]), message('never')]);
    const refused = await agent('m-refused', 'ticket.refused');
    router.script('m-refused', [{ type: 'error', status: 401 }]);

    await Promise.all(['ticket.turns', 'ticket.costly', 'ticket.refused'].map((kind) => post(kind)));
    const slowCalls = mcp.calls.filter((call) => call.name === 'slow').length;
    await post('ticket.stop');
    const toStop = await runOf(stopped, ['running']);
    // Stopped while its tool runs: the run ends at the next step, without a second model call.
    await waitFor(async () => mcp.calls.filter((call) => call.name === 'slow').length > slowCalls, { timeoutMs: 30_000, intervalMs: 20, what: 'the slow tool called' });
    expect((await api('POST', `/v1/workspaces/loop/runs/${toStop.id}/stop`)).status).toBe(202);

    expect(await runOf(turns)).toMatchObject({ status: 'failed', error: { code: 'max_turns_reached' }, outcome: { turns: 2 } });
    expect(router.of('m-turns')).toHaveLength(2);
    // 1,000 input tokens at 1,000 USD per million: 1 USD, over the 0.5 cap after one call, and no second call.
    expect(await runOf(costly)).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' }, outcome: { turns: 1, costUsd: 1 } });
    expect(router.of('m-costly')).toHaveLength(1);
    expect(await runOf(stopped)).toMatchObject({ status: 'cancelled', reason: 'stopped' });
    expect(router.of('m-stop')).toHaveLength(1);
    const failed = await runOf(refused);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'model_auth_failed' } });
    expect(JSON.stringify(failed)).not.toContain(API_KEY);
    // The day's spend is kept for the perDayUsd cap.
    const spend = await pg.query('SELECT cost_usd::float AS usd FROM agent_spend_daily WHERE agent_id = $1', [costly]);
    expect(spend.rows[0].usd).toBe(1);
  });

  it('platform tools at /mcp with the run agent token: its facts carry causedBy depth + 1, and the token is revoked when the run ends', async () => {
    const id = await agent('m-platform', 'ticket.platform', { tools: { mcpServers: [], platform: ['emit_event', 'list_runs'] }, permissionMode: 'auto' });
    router.script('m-platform', [
      message(null, [
        { id: 'e1', name: 'platform__emit_event', arguments: { kind: 'note.added', subject: { type: 'note', id: 'n-1' }, payload: { text: 'seen' } } },
        { id: 'e2', name: 'platform__list_runs', arguments: { agentId: id } },
      ]),
      message('noted'),
    ]);
    await post('ticket.platform');
    const run = await runOf(id);
    expect(run).toMatchObject({ status: 'completed', outcome: { summary: 'noted', toolCalls: 2 } });
    const entries = await transcript(run.id);
    expect(entries.filter((entry) => entry.type === 'tool').map((entry) => entry.content.ok)).toEqual([true, true]);
    const offered = (router.of('m-platform')[0]!.body!.tools ?? []).map((tool: any) => tool.function.name).sort();
    expect(offered).toEqual(['platform__emit_event', 'platform__list_runs']);
    let note: any;
    await waitFor(async () => {
      note = (await api('GET', '/v1/workspaces/loop/events?kind=note.added')).body.events?.[0];
      return note !== undefined;
    }, { timeoutMs: 30_000, intervalMs: 100, what: 'the emitted fact' });
    expect(note).toMatchObject({ causedBy: { runId: run.id, agentId: id, depth: 1 }, actor: { type: 'agent', id } });
    const tokens = await pg.query('SELECT revoked_at FROM agent_tokens WHERE run_id = $1', [run.id]);
    expect(tokens.rows).toHaveLength(1);
    expect(tokens.rows[0].revoked_at).not.toBeNull();
  });
});
