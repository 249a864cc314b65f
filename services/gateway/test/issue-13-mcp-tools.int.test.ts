import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Client } from 'pg';
import { mailboxStream, MAILBOX_FIELD } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import { toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { callTool, connectMcp } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

const VIEWER_TOOLS = ['get_agent', 'get_event', 'get_run', 'get_transcript', 'list_agents', 'list_events', 'list_runs', 'get_task', 'list_tasks', 'list_approvals', 'get_approval', 'list_teammates', 'list_schedules', 'get_eval'].sort();
const MEMBER_TOOLS = [
  ...VIEWER_TOOLS,
  'emit_event',
  'retry_run',
  'send_session_message',
  'start_run',
  'stop_run',
  'create_task',
  'update_task',
  'claim_task',
  'complete_task',
  'delegate_to_agent',
  'decide_approval',
  'try_agent',
  'run_eval',
  'save_agent',
  'send_message',
  'spawn_teammate',
  'stop_teammate',
  'post_peer_note',
  'create_schedule',
  'delete_schedule',
].sort();

/**
 * Issue 13 item 8 on the platform MCP server, against the real gateway: the
 * tool list a token sees holds only what its role may call, and the run,
 * transcript and steering tools do what their REST routes do (the same
 * commands), with the same role rules, agent tokens included.
 */
describe('issue 13: platform MCP tools by role, for runs, transcripts and steering', () => {
  let platform: TestPlatform;
  let pg: Client;
  let sql: SqlPool;
  let admin: Api;
  let acmeId: string;
  let agentId: string;
  let member: McpClient;
  let viewer: McpClient;

  const ws = '/v1/workspaces/acme';
  const spec = { name: 'mcp-bot', instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] };

  /** A run of the agent inserted as the matcher and runner would leave it; returns its id and session. */
  async function insertRun(status: string, depth = 0): Promise<{ id: string; sessionId: string }> {
    const id = newId();
    const sessionId = randomUUID();
    const eventId = randomUUID();
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, depth, session_id, started_at, ended_at)
       VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', $6::"RunStatus", $7, $8, now(), CASE WHEN $6 IN ('completed', 'failed', 'cancelled') THEN now() END)`,
      [id, acmeId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, status, depth, sessionId],
    );
    return { id, sessionId };
  }

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    const memberToken = (await admin('POST', `${ws}/tokens`, { name: 'ci', role: 'member' })).body.token;
    const viewerToken = (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    agentId = (await admin('POST', `${ws}/agents`, spec)).body.id;
    member = await connectMcp(platform.gatewayUrl, memberToken);
    viewer = await connectMcp(platform.gatewayUrl, viewerToken);
    // Starting the platform's processes takes most of a minute on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await member?.close();
    await viewer?.close();
    await sql?.$disconnect();
    await pg?.end();
    await platform?.stop();
  });

  it('lists only the tools the role may call', async () => {
    expect((await viewer.listTools()).tools.map((tool) => tool.name).sort()).toEqual(VIEWER_TOOLS);
    expect((await member.listTools()).tools.map((tool) => tool.name).sort()).toEqual(MEMBER_TOOLS);
  });

  it('still refuses a viewer who calls a tool it was not shown', async () => {
    for (const [name, args] of [
      ['emit_event', { kind: 'a.b', subject: { type: 'x', id: '1' } }],
      ['start_run', { agentId, input: 'go' }],
      ['stop_run', { id: randomUUID() }],
      ['retry_run', { id: randomUUID() }],
      ['send_session_message', { sessionId: randomUUID(), content: 'hi' }],
    ] as const) {
      const result = await callTool(viewer, name, args);
      expect({ name, ...result }).toMatchObject({ name, isError: true, body: { error: { code: 'FORBIDDEN', details: { required: 'member' } } } });
    }
  });

  it('annotates the new tools: stopping a run is destructive, reading a transcript is read-only', async () => {
    const byName = Object.fromEntries((await member.listTools()).tools.map((tool) => [tool.name, tool]));
    expect(byName.stop_run!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['start_run', 'retry_run', 'send_session_message']) {
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
    expect(byName.get_transcript!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.start_run!.inputSchema.required).toEqual(['input', 'agentId']);
  });

  it('starts, stops and retries a run as the REST routes do', async () => {
    const started = await callTool(member, 'start_run', { agentId, input: 'check the build' });
    expect(started).toMatchObject({ isError: false, body: { agentId, status: 'queued', origin: { type: 'manual', input: 'check the build' }, causedBy: null, depth: 0 } });
    const runId = started.body.id;
    expect((await admin('GET', `${ws}/runs/${runId}`)).body).toMatchObject({ id: runId, status: 'queued' });

    const stopped = await callTool(member, 'stop_run', { id: runId });
    expect(stopped).toMatchObject({ isError: false, body: { action: 'cancelled', run: { id: runId, status: 'cancelled' } } });
    expect((await callTool(member, 'stop_run', { id: runId })).body.error.code).toBe('RUN_NOT_ACTIVE');

    const retried = await callTool(member, 'retry_run', { id: runId });
    expect(retried).toMatchObject({ isError: false, body: { status: 'queued', origin: { type: 'retry', retryOf: runId } } });
    expect((await admin('GET', `${ws}/runs/${retried.body.id}`)).status).toBe(200);
    expect((await callTool(member, 'retry_run', { id: retried.body.id })).body.error.code).toBe('RUN_NOT_FINISHED');
    expect((await callTool(member, 'start_run', { agentId: randomUUID(), input: 'x' })).body.error.code).toBe('AGENT_NOT_FOUND');
  });

  it("starts a run with an agent token as caused by the token's run", async () => {
    const caller = await insertRun('running', 2);
    const { token } = await new SqlAgentTokens(sql).mint({ workspaceId: acmeId, runId: caller.id, agentId, depth: 2, ttlMs: 60_000 });
    const agent = await connectMcp(platform.gatewayUrl, token);
    try {
      // The agent's own runs need allowSelfCause, as over REST.
      expect((await callTool(agent, 'start_run', { agentId, input: 'again' })).body.error.code).toBe('SELF_CAUSED');
      const helperId = (await admin('POST', `${ws}/agents`, { ...spec, name: 'helper-bot' })).body.id;
      const started = await callTool(agent, 'start_run', { agentId: helperId, input: 'help' });
      expect(started.body).toMatchObject({ agentId: helperId, causedBy: { runId: caller.id, agentId, depth: 3 }, depth: 3 });
    } finally {
      await agent.close();
    }
  });

  it('reads a transcript a page at a time, and not another run', async () => {
    const run = await insertRun('completed');
    for (const seq of [1, 2, 3]) {
      await pg.query(`INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content, at) VALUES ($1, $2, $3, $4, 'assistant', $5, now())`, [
        run.sessionId,
        seq,
        acmeId,
        run.id,
        JSON.stringify({ text: `step ${seq}` }),
      ]);
    }
    const first = await callTool(viewer, 'get_transcript', { runId: run.id, limit: 2 });
    expect(first.isError).toBe(false);
    expect(first.body.entries.map((entry: { seq: number }) => entry.seq)).toEqual([1, 2]);
    expect(first.body.next).toBe(2);
    const rest = await callTool(viewer, 'get_transcript', { runId: run.id, after: first.body.next });
    expect(rest.body).toMatchObject({ entries: [{ seq: 3, content: { text: 'step 3' } }], next: null });
    // The same answer as REST.
    expect((await admin('GET', `${ws}/runs/${run.id}/transcript?limit=2`)).body).toEqual(first.body);
    expect((await callTool(viewer, 'get_transcript', { runId: randomUUID() })).body.error.code).toBe('RUN_NOT_FOUND');
  });

  it("posts a session message to a live session's mailbox, and refuses an ended or unknown one", async () => {
    const live = await insertRun('running');
    const sent = await callTool(member, 'send_session_message', { sessionId: live.sessionId, content: 'focus on the flaky test' });
    expect(sent.isError).toBe(false);
    const entries = await platform.redis.redis.xrange(toKey(platform.redis.prefix, ...mailboxStream(live.sessionId)), '-', '+');
    const envelopes = entries.map(([, fields]) => JSON.parse(fields[fields.indexOf(MAILBOX_FIELD) + 1]!));
    expect(envelopes).toEqual([expect.objectContaining({ id: sent.body.id, sessionId: live.sessionId, content: 'focus on the flaky test', from: expect.objectContaining({ type: 'user' }) })]);

    const ended = await insertRun('completed');
    expect((await callTool(member, 'send_session_message', { sessionId: ended.sessionId, content: 'late' })).body.error.code).toBe('SESSION_NOT_ACTIVE');
    expect((await callTool(member, 'send_session_message', { sessionId: randomUUID(), content: 'x' })).body.error.code).toBe('SESSION_NOT_FOUND');
    expect((await callTool(member, 'send_session_message', { sessionId: live.sessionId, content: '' })).body.error.code).toBe('VALIDATION_FAILED');
  });
});
