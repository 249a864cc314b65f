import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { newId, newSecretsKey } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import {
  apiClient,
  startLocalOpenAiServer,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalOpenAiRequest,
  type LocalOpenAiServer,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { callTool, connectMcp } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 15 item 9, try-drive: a draft or saved agent run once in shadow by
 * real gateway, event-log, matcher and runner processes, with a real MCP
 * server that records every call it gets. The platform's reads run live;
 * writes and every external tool are captured as wouldHave and reach
 * nothing; a try records no fact, so no agent is ever woken by one.
 */
jest.setTimeout(180_000);

const ENDED = ['completed', 'failed', 'cancelled'];

describe('issue 15: try-drive (shadow runs)', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let openai: LocalOpenAiServer;
  /** What the local OpenAI-compatible server was asked. */
  const modelRequests: LocalOpenAiRequest[] = [];
  let pg: Client;
  let admin: Api;
  let other: Api;
  let viewer: Api;
  let acmeId: string;
  let adminUserId: string;
  let helperId: string;
  let watcherId: string;
  let runWatcherId: string;
  let eventId: string;

  const scripted = (name: string, script: unknown[], extra: Record<string, unknown> = {}) => ({
    name,
    instructions: 'Act on the fact.',
    model: { provider: 'scripted', name: 'script' },
    script,
    triggers: [{ kind: 'ticket.opened' }],
    ...extra,
  });

  /** A draft that reads, writes, starts a run and calls two external tools (one calling itself read-only). */
  const shadowDraft = (name: string, extra: Record<string, unknown> = {}) =>
    scripted(
      name,
      [
        { tool: 'platform.list_events', arguments: { after: 0 } },
        { tool: 'platform.emit_event', arguments: { kind: 'shadow.note', subject: { type: 'ticket', id: '{{event.subject.id}}' }, payload: { seen: true } } },
        { tool: 'platform.start_run', arguments: { agentId: helperId, input: 'go' } },
        { tool: 'web.echo', arguments: { text: 'hello' } },
        { tool: 'web.delete_everything', arguments: {} },
        { say: 'done {{event.subject.id}}' },
      ],
      {
        tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }], platform: ['list_events', 'emit_event', 'start_run'] },
        permissionMode: 'default',
        ...extra,
      },
    );

  const tryAgent = async (body: Record<string, unknown>) => {
    const response = await admin('POST', '/v1/workspaces/acme/agents/try', body);
    expect(response.status).toBe(201);
    return response.body as { runId: string; agentId: string; version: number | null };
  };

  const ended = async (runId: string) => {
    let run: any;
    await waitFor(async () => {
      run = (await admin('GET', `/v1/workspaces/acme/runs/${runId}`)).body;
      return ENDED.includes(run.status);
    }, { what: `run ${runId} ended`, timeoutMs: 90_000 });
    return run;
  };

  const runsOf = async (agentId: string) => (await admin('GET', `/v1/workspaces/acme/runs?agentId=${agentId}`)).body.runs as any[];
  /** Rows of the table in workspace acme (the other workspace's agents may be woken meanwhile). */
  const count = async (table: string) => Number((await pg.query(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [acmeId])).rows[0].n);

  beforeAll(async () => {
    mcp = await startTestMcpServer();
    // One costly answer: 1,000 input tokens at 1,000 USD per million, and a write it asks for.
    openai = await startLocalOpenAiServer({
      respond: (request) => {
        modelRequests.push(request);
        return { type: 'message', content: null, toolCalls: [{ id: 'c1', name: 'platform__emit_event', arguments: { kind: 'shadow.note', subject: { type: 'ticket', id: 'B' } } }], usage: { prompt_tokens: 1000, completion_tokens: 0 } };
      },
    });
    platform = await startTestPlatform({
      matcher: true,
      env: {
        RUNNER_MCP_ALLOW_PRIVATE: 'true',
        RUNNER_MCP_CONNECT_TIMEOUT_MS: '20000',
        SECRETS_KEY: newSecretsKey(),
        OPENAI_BASE_URL: openai.baseUrl,
        MODEL_MAX_ATTEMPTS: '1',
        MODEL_PRICES: JSON.stringify({ 'm-costly': { input: 1000, output: 0 } }),
      },
    });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    const created = await admin('POST', '/v1/workspaces/acme/tokens', { name: 'reader', role: 'viewer' });
    expect(created.status).toBe(201);
    viewer = apiClient(platform.gatewayUrl, created.body.token);
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    expect((await admin('PUT', '/v1/workspaces/acme/secrets/openai-key', { value: 'sk-test-try-0123456789' })).status).toBe(201);
    adminUserId = (await pg.query(`SELECT user_id::text FROM memberships WHERE workspace_id = $1`, [acmeId])).rows[0].user_id;
    helperId = (await admin('POST', '/v1/workspaces/acme/agents', scripted('helper', [{ say: 'helped' }], { triggers: [{ kind: 'never.happens' }] }))).body.id;
    watcherId = (await admin('POST', '/v1/workspaces/acme/agents', scripted('watcher', [{ say: 'woke' }], { triggers: [{ kind: 'shadow.note' }] }))).body.id;
    runWatcherId = (await admin('POST', '/v1/workspaces/acme/agents', scripted('run-watcher', [{ say: 'saw a run' }], { triggers: [{ kind: 'agent.run.*' }] }))).body.id;
    const posted = await admin('POST', '/v1/workspaces/acme/events', { kind: 'ticket.recorded', subject: { type: 'ticket', id: 'T-7' }, payload: { title: 'Printer on fire' } });
    expect(posted.status).toBe(202);
    eventId = posted.body.id;
    await waitFor(async () => (await admin('GET', `/v1/workspaces/acme/events/${eventId}`)).status === 200, { what: 'the fact stored' });
  }, 180_000);

  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await mcp?.close();
    await openai?.close();
  });

  it('runs a new draft on a recorded fact: reads live, writes and external tools captured, nothing reaches a server, no fact is recorded', async () => {
    const tried = await tryAgent({ spec: shadowDraft('draft-one'), eventId });
    expect(tried.version).toBeNull();
    const run = await ended(tried.runId);
    expect(run).toMatchObject({ status: 'completed', agentId: tried.agentId, agentVersion: 0, origin: { type: 'try', userId: adminUserId, eventId } });
    expect(run.outcome.summary).toBe('done T-7');

    // The external server was never called, not even its read-only-labelled tool.
    expect(mcp.calls).toEqual([]);
    const captured = (await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}/would-have`)).body;
    expect(captured.wouldHave.map((call: any) => call.tool)).toEqual(['platform.emit_event', 'platform.start_run', 'web.echo', 'web.delete_everything']);
    expect(captured.wouldHave[0].arguments).toEqual({ kind: 'shadow.note', subject: { type: 'ticket', id: 'T-7' }, payload: { seen: true } });
    expect(captured.wouldHave[1].arguments).toEqual({ agentId: helperId, input: 'go' });

    // The read ran live, as the person who tried it: it saw the recorded fact.
    const entries = (await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}/transcript`)).body.entries as any[];
    const read = entries.find((entry) => entry.type === 'tool' && entry.content.name === 'platform.list_events');
    expect(read.content).toMatchObject({ ok: true });
    expect(read.content.wouldHave).toBeUndefined();
    expect(read.content.result).toContain('ticket.recorded');
    const token = (await pg.query(`SELECT user_id::text, revoked_at FROM agent_tokens WHERE run_id = $1`, [tried.runId])).rows[0];
    expect(token.user_id).toBe(adminUserId);
    expect(token.revoked_at).not.toBeNull();

    // Nothing of the try is a fact: no agent.run.* of it, no would-be note; so nothing was woken.
    await platform.factsRecorded();
    const facts = await pg.query(`SELECT kind FROM platform_events WHERE subject_id = $1 OR kind = 'shadow.note' OR caused_by->>'runId' = $1`, [tried.runId]);
    expect(facts.rows).toEqual([]);
    expect(await runsOf(watcherId)).toEqual([]);
    expect(await runsOf(runWatcherId)).toEqual([]);
    expect(await runsOf(helperId)).toEqual([]);
  });

  it('tries a saved version and drafts of it, kept beside the agent for comparison', async () => {
    const saved = await admin('POST', '/v1/workspaces/acme/agents', { ...shadowDraft('saved'), enabled: false });
    expect(saved.status).toBe(201);
    const savedId = saved.body.id as string;
    const first = await tryAgent({ agentId: savedId, version: 1, input: 'hi' });
    expect(first).toEqual({ runId: expect.any(String), agentId: savedId, version: 1 });
    const draft = await tryAgent({ spec: { ...shadowDraft('saved'), script: [{ tool: 'platform.emit_event', arguments: { kind: 'shadow.note', subject: { type: 'ticket', id: 'D' } } }, { say: 'draft said {{input}}' }] }, agentId: savedId, input: 'hey' });
    expect(draft.version).toBeNull();
    expect((await ended(first.runId)).status).toBe('completed');
    const draftRun = await ended(draft.runId);
    expect(draftRun).toMatchObject({ status: 'completed', agentVersion: 0, outcome: { summary: 'draft said hey' } });

    const listed = (await admin('GET', `/v1/workspaces/acme/agents/${savedId}/tries`)).body;
    expect(listed.tries.map((t: any) => [t.run.id, t.version])).toEqual([[draft.runId, null], [first.runId, 1]]);
    expect(listed.tries[0].spec.script).toHaveLength(2);
    expect(listed.tries[1].spec.script).toHaveLength(6);
    expect(listed.tries[1].run.origin).toEqual({ type: 'try', userId: adminUserId, version: 1, input: 'hi' });
    expect((await admin('GET', `/v1/workspaces/acme/runs/${draft.runId}/would-have`)).body.wouldHave.map((c: any) => c.tool)).toEqual(['platform.emit_event']);
    // A try is no run of the agent's to retry: that would run it for real.
    const retried = await admin('POST', `/v1/workspaces/acme/runs/${first.runId}/retry`);
    expect(retried.status).toBe(409);
    expect(retried.body.error.code).toBe('RUN_NOT_RETRYABLE');
    expect(mcp.calls).toEqual([]);
  });

  it('keeps a new draft’s tries under the id its first try got, and runs on a hand-built fact', async () => {
    const first = await tryAgent({ spec: shadowDraft('fresh'), fact: { kind: 'ticket.opened', subject: { type: 'ticket', id: 'H-1' }, payload: { n: 1 } } });
    const second = await tryAgent({ spec: shadowDraft('fresh'), agentId: first.agentId, input: 'again' });
    expect(second.agentId).toBe(first.agentId);
    expect((await ended(first.runId)).outcome.summary).toBe('done H-1');
    await ended(second.runId);
    const listed = (await admin('GET', `/v1/workspaces/acme/agents/${first.agentId}/tries`)).body;
    expect(listed.tries.map((t: any) => t.run.id)).toEqual([second.runId, first.runId]);
    const captured = (await admin('GET', `/v1/workspaces/acme/runs/${first.runId}/would-have`)).body.wouldHave;
    expect(captured[0].arguments.subject).toEqual({ type: 'ticket', id: 'H-1' });
    expect(mcp.calls).toEqual([]);
  });

  it('holds maxTurns', async () => {
    const tried = await tryAgent({ spec: shadowDraft('short', { budget: { maxTurns: 2 } }), eventId });
    const run = await ended(tried.runId);
    expect(run).toMatchObject({ status: 'failed', reason: 'max_turns_reached' });
    expect(run.outcome.turns).toBe(2);
    // Two turns: the read, then the captured emit_event.
    expect((await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}/would-have`)).body.wouldHave.map((c: any) => c.tool)).toEqual(['platform.emit_event']);
  });

  it('holds the run budget with the real openai client: over it after one call, the answer’s calls never run', async () => {
    const spec = {
      ...scripted('costly', []),
      script: undefined,
      model: { provider: 'openai', name: 'm-costly', apiKeySecret: 'openai-key' },
      tools: { platform: ['emit_event'] },
      budget: { perRunUsd: 0.5, perDayUsd: 5 },
    };
    const tried = await tryAgent({ spec, input: 'go' });
    const run = await ended(tried.runId);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' }, outcome: { turns: 1, costUsd: 1 } });
    expect(modelRequests).toHaveLength(1);
    // The model was offered the write (what the agent would have), under its model name.
    expect(modelRequests[0]!.body?.tools?.map((tool: any) => tool.function.name)).toContain('platform__emit_event');
    expect((await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}/would-have`)).body.wouldHave).toEqual([]);
  });

  it('answers bad input with a 4xx and a stable code, and writes nothing', async () => {
    const otherAgent = (await other('POST', '/v1/workspaces/other/agents', scripted('theirs', [{ say: 'x' }]))).body.id as string;
    const otherEvent = (await other('POST', '/v1/workspaces/other/events', { kind: 'ticket.opened', subject: { type: 'ticket', id: 'O' } })).body.id as string;
    await waitFor(async () => (await other('GET', `/v1/workspaces/other/events/${otherEvent}`)).status === 200);
    const helper = { agentId: helperId };
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'VALIDATION_FAILED'],
      [{ input: 'x' }, 400, 'VALIDATION_FAILED'],
      [{ ...helper }, 400, 'VALIDATION_FAILED'],
      [{ ...helper, input: 'x', eventId }, 400, 'VALIDATION_FAILED'],
      [{ ...helper, input: '' }, 400, 'VALIDATION_FAILED'],
      [{ ...helper, input: 42 }, 400, 'VALIDATION_FAILED'],
      [{ ...helper, input: 'x', version: 0 }, 400, 'VALIDATION_FAILED'],
      [{ spec: shadowDraft('v'), version: 1, input: 'x' }, 400, 'VALIDATION_FAILED'],
      [{ spec: { name: 'bad' }, input: 'x' }, 400, 'VALIDATION_FAILED'],
      [{ ...helper, input: 'x', extra: true }, 400, 'VALIDATION_FAILED'],
      [{ ...helper, fact: { kind: 'Not A Kind', subject: { type: 't', id: '1' } } }, 400, 'VALIDATION_FAILED'],
      [{ agentId: 'not-a-uuid', input: 'x' }, 400, 'VALIDATION_FAILED'],
      [[], 400, 'VALIDATION_FAILED'],
      [{ agentId: randomUUID(), input: 'x' }, 404, 'AGENT_NOT_FOUND'],
      [{ agentId: otherAgent, input: 'x' }, 404, 'AGENT_NOT_FOUND'],
      [{ spec: shadowDraft('d'), agentId: otherAgent, input: 'x' }, 404, 'AGENT_NOT_FOUND'],
      [{ ...helper, version: 9, input: 'x' }, 404, 'AGENT_VERSION_NOT_FOUND'],
      [{ ...helper, eventId: otherEvent }, 404, 'EVENT_NOT_FOUND'],
      [{ ...helper, eventId: randomUUID() }, 404, 'EVENT_NOT_FOUND'],
    ];
    const before = [await count('runs'), await count('agent_tries')];
    for (const [body, status, code] of cases) {
      const response = await admin('POST', '/v1/workspaces/acme/agents/try', body);
      expect([JSON.stringify(body).slice(0, 80), response.status, response.body.error?.code]).toEqual([JSON.stringify(body).slice(0, 80), status, code]);
    }
    const malformed = await admin('POST', '/v1/workspaces/acme/agents/try', '{"spec":');
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'MALFORMED_JSON']);
    expect([await count('runs'), await count('agent_tries')]).toEqual(before);
    expect((await admin('GET', `/v1/workspaces/acme/agents/${randomUUID()}/tries`)).body.error.code).toBe('AGENT_NOT_FOUND');
    expect((await admin('GET', `/v1/workspaces/acme/agents/${otherAgent}/tries`)).body.error.code).toBe('AGENT_NOT_FOUND');
    expect((await admin('GET', `/v1/workspaces/acme/runs/${randomUUID()}/would-have`)).body.error.code).toBe('RUN_NOT_FOUND');
    expect((await admin('GET', '/v1/workspaces/acme/agents/try')).status).toBe(400);
  });

  it('refuses a viewer, another workspace’s token and an agent token; a try’s own token only reads', async () => {
    const body = { agentId: helperId, input: 'x' };
    const before = [await count('runs'), await count('agent_tries')];
    const byViewer = await viewer('POST', '/v1/workspaces/acme/agents/try', body);
    expect([byViewer.status, byViewer.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const byOther = await other('POST', '/v1/workspaces/acme/agents/try', body);
    expect([byOther.status, byOther.body.error.code]).toEqual([403, 'WORKSPACE_FORBIDDEN']);
    expect((await other('GET', `/v1/workspaces/acme/agents/${helperId}/tries`)).status).toBe(403);

    // An agent token (minted by the runner's adapter for a running run of another workspace's agent).
    const otherId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'other'`)).rows[0].id;
    const theirs = (await other('POST', '/v1/workspaces/other/agents', scripted('bot', [{ say: 'x' }], { triggers: [{ kind: 'never.happens' }] }))).body.id as string;
    const runId = newId();
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, started_at, lane)
       VALUES ($1::uuid, $2, $3, 1, 'manual', $4, 'running', $5, now(), 'manual-test:' || $1::text)`,
      [runId, otherId, theirs, JSON.stringify({ type: 'manual', input: 'x', userId: randomUUID() }), randomUUID()],
    );
    const sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
    try {
      const tokens = new SqlAgentTokens(sql);
      const { token } = await tokens.mint({ workspaceId: otherId, runId, agentId: theirs, depth: 0, ttlMs: 60_000 });
      const asAgent = apiClient(platform.gatewayUrl, token);
      const byAgent = await asAgent('POST', '/v1/workspaces/other/agents/try', { agentId: theirs, input: 'x' });
      expect([byAgent.status, byAgent.body.error.code]).toEqual([403, 'SELF_IMPROVEMENT_NOT_ALLOWED']);
      const client = await connectMcp(platform.gatewayUrl, token);
      try {
        expect((await callTool(client, 'try_agent', { agentId: theirs, input: 'x' })).body.error.code).toBe('SELF_IMPROVEMENT_NOT_ALLOWED');
      } finally {
        await client.close();
      }

      // A try run's token (as the runner mints it) reads, and is refused every write.
      const tried = await tryAgent({ spec: scripted('slow', Array.from({ length: 10 }, (_, i) => ({ say: `step ${i}` })), { model: { provider: 'scripted', name: 'script', params: { stepMs: 5_000 } } }), input: 'wait' });
      await waitFor(async () => (await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}`)).body.status === 'running', { what: 'the try running', timeoutMs: 60_000 });
      const tryToken = (await tokens.mint({ workspaceId: acmeId, runId: tried.runId, agentId: tried.agentId, depth: 0, ttlMs: 60_000, userId: adminUserId })).token;
      const asTry = apiClient(platform.gatewayUrl, tryToken);
      expect((await asTry('GET', `/v1/workspaces/acme/runs/${tried.runId}`)).status).toBe(200);
      const write = await asTry('POST', '/v1/workspaces/acme/events', { kind: 'shadow.note', subject: { type: 'ticket', id: 'W' } });
      expect([write.status, write.body.error.code]).toEqual([403, 'FORBIDDEN']);
      const started = await asTry('POST', `/v1/workspaces/acme/agents/${helperId}/runs`, { input: 'go' });
      expect(started.status).toBe(403);
      // Over MCP it is offered its member's tools (the model sees what the agent would have), and refused every write.
      const tryClient = await connectMcp(platform.gatewayUrl, tryToken);
      try {
        expect((await tryClient.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['emit_event', 'start_run', 'list_events']));
        expect((await callTool(tryClient, 'emit_event', { kind: 'shadow.note', subject: { type: 'ticket', id: 'M' } })).body.error.code).toBe('FORBIDDEN');
        expect((await callTool(tryClient, 'list_events', {})).isError).toBe(false);
      } finally {
        await tryClient.close();
      }
      expect((await admin('POST', `/v1/workspaces/acme/runs/${tried.runId}/stop`)).status).toBe(202);
      expect((await ended(tried.runId)).status).toBe('cancelled');
      await expect(tokens.mint({ workspaceId: acmeId, runId, agentId: theirs, depth: 0, ttlMs: 60_000, userId: adminUserId })).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    } finally {
      await sql.$disconnect();
    }
    // The one try run of acme (the inserted run is the other workspace's).
    expect((await count('runs')) - before[0]!).toBe(1);
    await platform.factsRecorded();
    expect(await runsOf(watcherId)).toEqual([]);
    expect(await runsOf(helperId)).toEqual([]);
  });

  it('offers try_agent over MCP to members, not viewers', async () => {
    const token = (await admin('POST', '/v1/workspaces/acme/tokens', { name: 'mcp', role: 'member' })).body;
    const client = await connectMcp(platform.gatewayUrl, token.token);
    try {
      const result = await callTool(client, 'try_agent', { spec: shadowDraft('via-mcp'), eventId });
      expect(result.isError).toBe(false);
      const run = await ended(result.body.runId);
      expect(run).toMatchObject({ status: 'completed', origin: { type: 'try' } });
      expect((await callTool(client, 'try_agent', { input: 'x' })).body.error.code).toBe('VALIDATION_FAILED');
    } finally {
      await client.close();
    }
    const viewerToken = (await admin('POST', '/v1/workspaces/acme/tokens', { name: 'mcp-viewer', role: 'viewer' })).body;
    const asViewer = await connectMcp(platform.gatewayUrl, viewerToken.token);
    try {
      expect((await asViewer.listTools()).tools.map((tool) => tool.name)).not.toContain('try_agent');
      expect((await callTool(asViewer, 'try_agent', { agentId: helperId, input: 'x' })).body.error.code).toBe('FORBIDDEN');
    } finally {
      await asViewer.close();
    }
    expect(mcp.calls).toEqual([]);
  });

  it('leaves the matcher able to wake agents: a real fact of the would-be kind does (the control)', async () => {
    const posted = await admin('POST', '/v1/workspaces/acme/events', { kind: 'shadow.note', subject: { type: 'ticket', id: 'real' } });
    expect(posted.status).toBe(202);
    await waitFor(async () => (await runsOf(watcherId)).some((run) => run.status === 'completed'), { what: 'the watcher woken by a real fact', timeoutMs: 60_000 });
    await waitFor(async () => (await runsOf(runWatcherId)).length > 0, { what: 'the run watcher woken by a real run', timeoutMs: 60_000 });
  });
});
