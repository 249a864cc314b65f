import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { hashToken, newId } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import { apiClient, setRunColumns, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { callTool, connectMcp } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

/**
 * Agent tokens, minted and revoked with the runner's own adapter, used
 * against the real gateway over REST and MCP: what an agent records is
 * attributed to it by the platform, the token reaches its own workspace only,
 * acts with its creator's current role (capped at member), and stops working
 * the moment its run ends, it is revoked, it expires or its creator leaves.
 */
describe('agent tokens', () => {
  let platform: TestPlatform;
  let pg: Client;
  let sql: SqlPool;
  let tokens: SqlAgentTokens;
  let admin: Api;
  let other: Api;
  let acmeId: string;
  let creatorId: string;
  let agentId: string;
  let otherAgentId: string;
  let otherEventId: string;

  const fact = (extra: Record<string, unknown> = {}) => ({ kind: 'review.requested', subject: { type: 'pr', id: '42' }, ...extra });
  const spec = (name: string) => ({ name, instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] });

  /** Inserts a run of the agent in `status` at causation depth `depth`. */
  async function insertRun(status = 'running', depth = 2): Promise<string> {
    const id = newId();
    const eventId = randomUUID();
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, depth, session_id, started_at)
       VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', $6::"RunStatus", $7, $8, now())`,
      [id, acmeId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, status, depth, randomUUID()],
    );
    return id;
  }

  /** A running run and its freshly minted token. */
  async function mintedRun(options: { depth?: number; ttlMs?: number } = {}) {
    const depth = options.depth ?? 2;
    const runId = await insertRun('running', depth);
    const { token } = await tokens.mint({ workspaceId: acmeId, runId, agentId, depth, ttlMs: options.ttlMs ?? 60_000 });
    return { runId, token, api: apiClient(platform.gatewayUrl, token) };
  }

  const storedFact = (id: string) =>
    waitFor(async () => {
      const response = await admin('GET', `/v1/workspaces/acme/events/${id}`);
      return response.status === 200 ? response.body : undefined;
    }, { what: `fact ${id} stored` });

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    // The pool the runner's stores run on (decision 0015).
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    tokens = new SqlAgentTokens(sql);
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    agentId = (await admin('POST', '/v1/workspaces/acme/agents', spec('reviewer'))).body.id;
    otherAgentId = (await other('POST', '/v1/workspaces/other/agents', spec('theirs'))).body.id;
    creatorId = (await pg.query(`SELECT created_by::text FROM agents WHERE id = $1`, [agentId])).rows[0].created_by;
    const posted = await other('POST', '/v1/workspaces/other/events', fact());
    otherEventId = posted.body.id;
    await waitFor(async () => (await other('GET', `/v1/workspaces/other/events/${otherEventId}`)).status === 200);
    // Starting the platform's processes takes most of a minute on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await sql?.$disconnect();
    await pg?.end();
    await platform?.stop();
  });

  it('is minted as a recognisable secret of which only the SHA-256 is stored, acting as the agent’s creator', async () => {
    const { runId, token } = await mintedRun();
    expect(token).toMatch(/^sya_[A-Za-z0-9_-]{43}$/);
    const { rows } = await pg.query(`SELECT * FROM agent_tokens WHERE run_id = $1`, [runId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ hash: hashToken(token), workspace_id: acmeId, agent_id: agentId, user_id: creatorId, depth: 2, revoked_at: null });
    expect(JSON.stringify(rows[0])).not.toContain(token.slice(4));
  });

  it('refuses to mint for an agent of another workspace', async () => {
    await expect(tokens.mint({ workspaceId: acmeId, runId: newId(), agentId: otherAgentId, depth: 0, ttlMs: 60_000 })).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
  });

  it('attributes REST facts to the agent, caused by its run one step deeper, whatever the body claims', async () => {
    const { runId, api } = await mintedRun({ depth: 2 });
    // A claim is kept as statedActor, never as the actor (an `actor` in the body is refused: decision 0018).
    const single = await api('POST', '/v1/workspaces/acme/events', fact({ statedActor: { type: 'user', id: 'mallory' } }));
    expect(single.status).toBe(202);
    const batch = await api('POST', '/v1/workspaces/acme/events:batch', { events: [fact(), fact({ statedActor: { type: 'system', id: 'root' } })] });
    expect(batch.status).toBe(202);
    for (const id of [single.body.id, ...batch.body.ids]) {
      const stored = await storedFact(id);
      expect(stored.actor).toEqual({ type: 'agent', id: agentId });
      expect(stored.causedBy).toEqual({ runId, agentId, depth: 3 });
    }
  });

  it('starts manual runs one step deeper than its run, never of its own agent, never past the depth cap', async () => {
    const helperId = (await admin('POST', '/v1/workspaces/acme/agents', spec('helper'))).body.id as string;
    const { runId, api } = await mintedRun({ depth: 1 });
    const started = await api('POST', `/v1/workspaces/acme/agents/${helperId}/runs`, { input: 'please help' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ depth: 2, causedBy: { runId, agentId, depth: 2 } });
    const own = await api('POST', `/v1/workspaces/acme/agents/${agentId}/runs`, { input: 'me again' });
    expect(own.status).toBe(409);
    expect(own.body.error.code).toBe('SELF_CAUSED');
    const deep = await mintedRun({ depth: 4 });
    const tooDeep = await deep.api('POST', `/v1/workspaces/acme/agents/${helperId}/runs`, { input: 'deeper' });
    expect(tooDeep.status).toBe(409);
    expect(tooDeep.body.error).toMatchObject({ code: 'CAUSATION_DEPTH_EXCEEDED', details: { depth: 5, max: 5 } });
  });

  it('attributes MCP emit_event facts the same way', async () => {
    const { runId, token } = await mintedRun({ depth: 0 });
    const mcp = await connectMcp(platform.gatewayUrl, token);
    try {
      const emitted = await callTool(mcp, 'emit_event', fact({ payload: { note: 'from the agent' } }));
      expect(emitted).toMatchObject({ isError: false, body: { status: 'accepted' } });
      const stored = await storedFact(emitted.body.id);
      expect(stored).toMatchObject({ actor: { type: 'agent', id: agentId }, causedBy: { runId, agentId, depth: 1 }, payload: { note: 'from the agent' } });
    } finally {
      await mcp.close();
    }
  });

  it('reaches its own workspace only, over REST and MCP', async () => {
    const { token, api } = await mintedRun();
    expect((await api('GET', '/v1/workspaces/acme/events')).status).toBe(200);
    for (const [method, path] of [['GET', '/v1/workspaces/other/events'], ['GET', `/v1/workspaces/other/events/${otherEventId}`], ['POST', '/v1/workspaces/other/events']] as const) {
      const response = await api(method, path, method === 'POST' ? fact() : undefined);
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({ path, status: 403, code: 'WORKSPACE_FORBIDDEN' });
    }
    const mcp = await connectMcp(platform.gatewayUrl, token);
    try {
      expect((await callTool(mcp, 'get_event', { id: otherEventId })).body.error.code).toBe('EVENT_NOT_FOUND');
      expect((await callTool(mcp, 'get_agent', { id: otherAgentId })).body.error.code).toBe('AGENT_NOT_FOUND');
      const events = await callTool(mcp, 'list_events', { limit: 1000 });
      expect(events.body.events.every((event: { workspace: string }) => event.workspace === 'acme')).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('never administers, even when its creator is an admin', async () => {
    const { api } = await mintedRun();
    const created = await api('POST', '/v1/workspaces/acme/tokens', { name: 'escape', role: 'admin' });
    expect(created).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', details: { required: 'admin', actual: 'member' } } } });
    expect((await api('PUT', '/v1/workspaces/acme/settings', { agentsPaused: false })).status).toBe(403);
  });

  it('stops working at once when revoked (no cache), over REST and MCP; revoking is idempotent', async () => {
    const { runId, token, api } = await mintedRun();
    const mcp = await connectMcp(platform.gatewayUrl, token);
    try {
      expect((await callTool(mcp, 'list_runs', {})).isError).toBe(false);
      expect((await api('GET', '/v1/workspaces/acme/events')).status).toBe(200);
      await tokens.revoke(runId);
      expect(await api('GET', '/v1/workspaces/acme/events')).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED' } } });
      await expect(mcp.callTool({ name: 'list_runs', arguments: {} })).rejects.toMatchObject({ code: 401 });
    } finally {
      await mcp.close().catch(() => undefined);
    }
    await tokens.revoke(runId);
    await tokens.revoke(newId());
    expect((await pg.query(`SELECT count(*)::int AS n FROM agent_tokens WHERE run_id = $1 AND revoked_at IS NOT NULL`, [runId])).rows[0].n).toBe(1);
  });

  it('stops working when it expires', async () => {
    const { token, api } = await mintedRun({ ttlMs: 1_500 });
    expect((await api('GET', '/v1/workspaces/acme/runs')).status).toBe(200);
    await waitFor(async () => (await api('GET', '/v1/workspaces/acme/runs')).status === 401, { timeoutMs: 10_000, intervalMs: 200, what: 'expiry' });
    // Refused for its age alone: it was never revoked and its run is still running.
    const { rows } = await pg.query(`SELECT t.revoked_at, r.status::text FROM agent_tokens t JOIN runs r ON r.id = t.run_id WHERE t.hash = $1`, [hashToken(token)]);
    expect(rows).toEqual([{ revoked_at: null, status: 'running' }]);
  });

  it('stops working when its run ends, even if never revoked', async () => {
    const { runId, api } = await mintedRun();
    expect((await api('GET', '/v1/workspaces/acme/events')).status).toBe(200);
    await setRunColumns(pg, runId, { status: 'completed', ended_at: new Date() });
    expect((await api('GET', '/v1/workspaces/acme/events')).status).toBe(401);
  });

  it('is replaced by a second mint for the same run', async () => {
    const { runId, api: first } = await mintedRun();
    const { token } = await tokens.mint({ workspaceId: acmeId, runId, agentId, depth: 2, ttlMs: 60_000 });
    expect((await first('GET', '/v1/workspaces/acme/events')).status).toBe(401);
    expect((await apiClient(platform.gatewayUrl, token)('GET', '/v1/workspaces/acme/events')).status).toBe(200);
  });

  it('acts with its creator’s current role, and not at all once the creator has left the workspace', async () => {
    const { api } = await mintedRun();
    try {
      await pg.query(`UPDATE memberships SET role = 'viewer' WHERE workspace_id = $1 AND user_id = $2`, [acmeId, creatorId]);
      expect((await api('GET', '/v1/workspaces/acme/events')).status).toBe(200);
      expect(await api('POST', '/v1/workspaces/acme/events', fact())).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
      await pg.query(`DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2`, [acmeId, creatorId]);
      expect((await api('GET', '/v1/workspaces/acme/events')).status).toBe(401);
    } finally {
      await pg.query(
        `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'admin') ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = 'admin'`,
        [acmeId, creatorId],
      );
    }
  });
});
