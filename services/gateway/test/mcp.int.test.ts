import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { callTool, connectMcp, postMcpWithHost } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

/**
 * The platform MCP server at `/mcp` with a real MCP client over Streamable
 * HTTP against the real gateway and event-log: the tools and their
 * annotations, each tool's answer, roles, workspace scoping, bad arguments,
 * and the requests refused before any tool runs (no token, wrong Host).
 */
describe('platform MCP server', () => {
  let platform: TestPlatform;
  let pg: Client;
  let admin: Api;
  let other: Api;
  let memberToken: string;
  let viewerToken: string;
  let mcp: McpClient;
  const ids = { acme: {} as Record<string, string>, other: {} as Record<string, string> };

  const spec = (name: string) => ({ name, instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] });

  /** Inserts a finished trigger run, as the matcher and runner would have left it. */
  async function insertRun(workspaceId: string, agentId: string): Promise<string> {
    const id = newId();
    const eventId = randomUUID();
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, session_id, started_at, ended_at)
       VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', 'completed', $6, now(), now())`,
      [id, workspaceId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, randomUUID()],
    );
    return id;
  }

  /** Posts a fact over REST and waits until it is stored. */
  async function storedFact(api: Api, ws: string, kind: string): Promise<string> {
    const posted = await api('POST', `/v1/workspaces/${ws}/events`, { kind, subject: { type: 'build', id: 'b1' } });
    expect(posted.status).toBe(202);
    await waitFor(async () => (await api('GET', `/v1/workspaces/${ws}/events/${posted.body.id}`)).status === 200, { what: 'fact stored' });
    return posted.body.id;
  }

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    memberToken = (await admin('POST', '/v1/workspaces/acme/tokens', { name: 'ci', role: 'member' })).body.token;
    viewerToken = (await admin('POST', '/v1/workspaces/acme/tokens', { name: 'dash', role: 'viewer' })).body.token;
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const workspaces = (await pg.query(`SELECT slug, id::text FROM workspaces`)).rows;
    for (const [ws, api] of [['acme', admin], ['other', other]] as const) {
      const bucket = ids[ws];
      bucket.workspace = workspaces.find((row) => row.slug === ws).id;
      bucket.agent = (await api('POST', `/v1/workspaces/${ws}/agents`, spec(`${ws}-bot`))).body.id;
      bucket.event = await storedFact(api, ws, `build.${ws}`);
      bucket.run = await insertRun(bucket.workspace!, bucket.agent!);
    }
    mcp = await connectMcp(platform.gatewayUrl, memberToken);
    // Starting the platform's processes takes most of a minute on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await mcp?.close();
    await pg?.end();
    await platform?.stop();
  });

  it('lists the platform tools a member may call with their annotations and JSON Schemas', async () => {
    const { tools } = await mcp.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        'emit_event',
        'get_agent',
        'get_event',
        'get_run',
        'get_transcript',
        'list_agents',
        'list_events',
        'list_runs',
        'retry_run',
        'send_session_message',
        'start_run',
        'stop_run',
        // The task ledger and delegation (issue 17).
        'create_task',
        'list_tasks',
        'get_task',
        'update_task',
        'claim_task',
        'complete_task',
        'delegate_to_agent',
        // Approvals (issue 15).
        'list_approvals',
        'get_approval',
        'decide_approval',
        // Try-drive (issue 15).
        'try_agent',
        // Evals and governed self-improvement (issue 35).
        'run_eval',
        'get_eval',
        'save_agent',
        // Teammates (issue 17).
        'send_message',
        'spawn_teammate',
        'list_teammates',
        'stop_teammate',
        // Peer notes (issue 34).
        'post_peer_note',
        // Schedules (issue 30).
        'create_schedule',
        'list_schedules',
        'delete_schedule',
      ].sort(),
    );
    for (const name of ['list_events', 'get_event', 'list_runs', 'get_run', 'list_agents', 'get_agent', 'get_transcript']) {
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true });
    }
    expect(byName.emit_event!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get_event!.inputSchema).toMatchObject({ type: 'object', required: ['id'], additionalProperties: false });
    expect(byName.emit_event!.inputSchema.required).toEqual(['kind', 'subject']);
    expect(byName.emit_event!.inputSchema.properties).not.toHaveProperty('actor');
  });

  it('reads events, runs and agents of the token’s workspace', async () => {
    const events = await callTool(mcp, 'list_events', { kind: 'build.*' });
    expect(events.isError).toBe(false);
    expect(events.body.events.map((fact: { id: string }) => fact.id)).toEqual([ids.acme.event]);
    expect(events.body.nextCursor).toBe(events.body.events[0].seq);
    const event = await callTool(mcp, 'get_event', { id: ids.acme.event });
    expect(event).toMatchObject({ isError: false, body: { id: ids.acme.event, workspace: 'acme', kind: 'build.acme' } });

    const runs = await callTool(mcp, 'list_runs', { agentId: ids.acme.agent, limit: 10 });
    expect(runs.body).toMatchObject({ runs: [{ id: ids.acme.run, status: 'completed', workspace: 'acme' }], nextCursor: null });
    expect(await callTool(mcp, 'get_run', { id: ids.acme.run })).toMatchObject({ isError: false, body: { id: ids.acme.run, agentId: ids.acme.agent } });

    const agents = await callTool(mcp, 'list_agents', {});
    expect(agents.body.agents.map((agent: { id: string }) => agent.id)).toEqual([ids.acme.agent]);
    expect(await callTool(mcp, 'get_agent', { id: ids.acme.agent })).toMatchObject({ isError: false, body: { id: ids.acme.agent, spec: { name: 'acme-bot' } } });
  });

  it('answers with structured content as well as JSON text', async () => {
    const result = await mcp.callTool({ name: 'get_run', arguments: { id: ids.acme.run } });
    expect(result.structuredContent).toMatchObject({ id: ids.acme.run });
  });

  it('emits a fact (member), idempotently by key, stored like a REST one', async () => {
    const input = { kind: 'deploy.requested', subject: { type: 'service', id: 'api' }, payload: { env: 'prod' }, idempotencyKey: 'mcp-1' };
    const first = await callTool(mcp, 'emit_event', input);
    expect(first).toMatchObject({ isError: false, body: { status: 'accepted' } });
    const again = await callTool(mcp, 'emit_event', input);
    expect(again.body).toEqual({ id: first.body.id, status: 'duplicate' });
    const stored = await waitFor(async () => {
      const response = await admin('GET', `/v1/workspaces/acme/events/${first.body.id}`);
      return response.status === 200 ? response.body : undefined;
    });
    expect(stored).toMatchObject({ kind: 'deploy.requested', subject: { type: 'service', id: 'api' }, payload: { env: 'prod' }, idempotencyKey: 'mcp-1' });
    // A person's token: no agent attribution.
    expect(stored.causedBy).toBeUndefined();
  });

  it('refuses emit_event to a viewer, who can still read', async () => {
    const viewer = await connectMcp(platform.gatewayUrl, viewerToken);
    try {
      const emitted = await callTool(viewer, 'emit_event', { kind: 'deploy.requested', subject: { type: 'service', id: 'api' } });
      expect(emitted).toMatchObject({ isError: true, body: { error: { code: 'FORBIDDEN', details: { required: 'member', actual: 'viewer' } } } });
      expect((await callTool(viewer, 'get_event', { id: ids.acme.event })).isError).toBe(false);
    } finally {
      await viewer.close();
    }
  });

  it('does not find another workspace’s event, run or agent', async () => {
    expect((await callTool(mcp, 'get_event', { id: ids.other.event })).body.error.code).toBe('EVENT_NOT_FOUND');
    expect((await callTool(mcp, 'get_run', { id: ids.other.run })).body.error.code).toBe('RUN_NOT_FOUND');
    expect((await callTool(mcp, 'get_agent', { id: ids.other.agent })).body.error.code).toBe('AGENT_NOT_FOUND');
    const events = await callTool(mcp, 'list_events', { limit: 1000 });
    expect(events.body.events.map((fact: { id: string }) => fact.id)).not.toContain(ids.other.event);
    expect((await callTool(mcp, 'list_runs', { agentId: ids.other.agent })).body.runs).toEqual([]);
  });

  it('answers bad arguments with a VALIDATION_FAILED tool error, and an unknown tool with a protocol error', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['get_event', { id: 'not-a-uuid' }],
      ['get_event', {}],
      ['list_events', { limit: 0 }],
      ['list_events', { after: '5' }],
      ['list_runs', { status: 'sleeping' }],
      ['emit_event', { kind: 'Bad Kind', subject: { type: 'x', id: '1' } }],
      // The platform sets the actor: a caller cannot state one.
      ['emit_event', { kind: 'a.b', subject: { type: 'x', id: '1' }, actor: { type: 'user', id: 'mallory' } }],
    ];
    for (const [name, args] of cases) {
      const result = await callTool(mcp, name, args);
      expect({ name, args, ...result }).toMatchObject({ name, args, isError: true, body: { error: { code: 'VALIDATION_FAILED' } } });
      expect(Array.isArray(result.body.error.details)).toBe(true);
    }
    await expect(mcp.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  it('refuses a request without a valid token (401) and one whose Host is not allowed (403)', async () => {
    for (const token of [undefined, 'sy_not-a-token', 'sya_not-a-token']) {
      await expect(connectMcp(platform.gatewayUrl, token)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('UNAUTHENTICATED') });
    }
    const raw = await fetch(`${platform.gatewayUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(raw.status).toBe(401);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');

    const rebound = await postMcpWithHost(platform.gatewayUrl, 'evil.example:80', memberToken);
    expect(rebound.status).toBe(403);
    const allowed = await postMcpWithHost(platform.gatewayUrl, `localhost:${new URL(platform.gatewayUrl).port}`, memberToken);
    expect(allowed.status).toBe(200);
  });

  it('is stateless: GET and DELETE are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${platform.gatewayUrl}/mcp`, { method, headers: { authorization: `Bearer ${memberToken}` } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
