import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';

type Api = ReturnType<typeof apiClient>;

const spec = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  instructions: 'Do it.',
  model: { provider: 'scripted', name: 'demo' },
  script: [{ say: 'done' }],
  triggers: [{ kind: 'build.*' }],
  ...extra,
});

/**
 * Issue 13 items 7 and 8 on the gateway's API surface, against the real
 * gateway and event-log processes: 405 with `Allow`, an identical PUT that
 * makes no version, expiring tokens, whoami, deleted agents' history, the
 * role-filtered MCP tool list and the run, transcript and steering tools.
 */
describe('issue 13: the API surface', () => {
  let platform: TestPlatform;
  let pg: Client;
  let sql: SqlPool;
  let admin: Api;
  let adminToken: string;
  let otherToken: string;
  let viewerToken: string;
  let acmeId: string;

  const ws = '/v1/workspaces/acme';

  /** The `agent.*` facts about one agent, once the last one expected is stored. */
  async function agentFacts(agentId: string, until: (kinds: string[]) => boolean): Promise<string[]> {
    return waitFor(async () => {
      const { body } = await admin('GET', `${ws}/events?kind=agent.*&limit=1000`);
      const kinds = (body.events as Array<{ kind: string; subject: { id: string } }>).filter((f) => f.subject.id === agentId).map((f) => f.kind);
      return until(kinds) ? kinds : undefined;
    }, { what: `agent facts of ${agentId}` });
  }

  beforeAll(async () => {
    platform = await startTestPlatform();
    adminToken = await platform.createWorkspace('acme');
    admin = apiClient(platform.gatewayUrl, adminToken);
    otherToken = await platform.createWorkspace('other');
    viewerToken = (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    // Starting the platform's processes takes most of a minute on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await sql?.$disconnect();
    await pg?.end();
    await platform?.stop();
  });

  describe('405 METHOD_NOT_ALLOWED', () => {
    it('answers an unknown method on a known path with 405 and Allow, before authentication', async () => {
      const runId = randomUUID();
      const cases: Array<[string, string, string]> = [
        ['PATCH', `${ws}/events`, 'POST, GET, HEAD'],
        ['DELETE', `${ws}/runs/${runId}`, 'GET, HEAD'],
        ['GET', `${ws}/runs/${runId}/stop`, 'POST'],
        ['PUT', `${ws}/events:batch`, 'POST'],
        ['POST', '/v1/whoami', 'GET, HEAD'],
        ['DELETE', '/v1/openapi.json', 'GET, HEAD'],
        ['GET', '/mcp', 'POST'],
        ['PATCH', `${ws}/agents/${runId}/`, 'GET, PUT, DELETE, HEAD'],
      ];
      for (const [method, path, allow] of cases) {
        for (const api of [admin, apiClient(platform.gatewayUrl)]) {
          const response = await api(method, path);
          expect({ method, path, status: response.status, allow: response.headers.get('allow'), code: response.body?.error?.code }).toEqual({
            method,
            path,
            status: 405,
            allow,
            code: 'METHOD_NOT_ALLOWED',
          });
        }
      }
    });

    it('leaves allowed methods and unknown paths alone', async () => {
      expect((await admin('GET', `${ws}/events`)).status).toBe(200);
      expect((await admin('HEAD', `${ws}/events`)).status).toBe(200);
      expect((await admin('PATCH', `${ws}/nothing-here`)).status).toBe(404);
      expect((await admin('GET', '/v2/anything')).status).toBe(404);
    });
  });

  describe('PUT of an identical spec', () => {
    it('makes no new version and records no agent.updated; a real change still does', async () => {
      const created = await admin('POST', `${ws}/agents`, spec('same-bot'));
      expect(created.status).toBe(201);
      const id = created.body.id;
      // As first written (defaults absent), and as read back (defaults filled in): both the same spec.
      for (const body of [spec('same-bot'), (await admin('GET', `${ws}/agents/${id}`)).body.spec]) {
        const put = await admin('PUT', `${ws}/agents/${id}`, body);
        expect(put.status).toBe(200);
        expect(put.body.version).toBe(1);
        expect(put.headers.get('etag')).toBe('"1"');
      }
      const changed = await admin('PUT', `${ws}/agents/${id}`, spec('same-bot', { description: 'now described' }));
      expect(changed.body.version).toBe(2);
      expect((await admin('GET', `${ws}/agents/${id}/versions`)).body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
      // The facts of one client's changes are recorded in order: once v2's is stored, any of the identical PUTs would be too.
      expect(await agentFacts(id, (kinds) => kinds.includes('agent.updated'))).toEqual(['agent.created', 'agent.updated']);
    });

    it('still flips enabled alone, without a version', async () => {
      const id = (await admin('POST', `${ws}/agents`, spec('flag-bot'))).body.id;
      const put = await admin('PUT', `${ws}/agents/${id}`, spec('flag-bot', { enabled: false }));
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ version: 1, enabled: false });
      expect((await admin('GET', `${ws}/agents/${id}`)).body.enabled).toBe(false);
      expect(await agentFacts(id, (kinds) => kinds.includes('agent.disabled'))).toEqual(['agent.created', 'agent.disabled']);
    });

    it('still refuses a stale If-Match', async () => {
      const id = (await admin('POST', `${ws}/agents`, spec('stale-bot'))).body.id;
      await admin('PUT', `${ws}/agents/${id}`, spec('stale-bot', { task: 'v2' }));
      const stale = await admin('PUT', `${ws}/agents/${id}`, spec('stale-bot', { task: 'v2' }), { 'if-match': '"1"' });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('AGENT_VERSION_CONFLICT');
    });
  });

  describe('expiring tokens', () => {
    it('creates a token with ttlSeconds or expiresAt, shown when listed', async () => {
      const before = Date.now();
      const byTtl = await admin('POST', `${ws}/tokens`, { name: 'ttl', role: 'viewer', ttlSeconds: 3600 });
      expect(byTtl.status).toBe(201);
      const ttlExpiry = Date.parse(byTtl.body.expiresAt);
      expect(ttlExpiry).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
      expect(ttlExpiry).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
      const at = new Date(Date.now() + 86_400_000).toISOString();
      const byDate = await admin('POST', `${ws}/tokens`, { name: 'dated', role: 'member', expiresAt: at });
      expect(Date.parse(byDate.body.expiresAt)).toBe(Date.parse(at));
      const listed = (await admin('GET', `${ws}/tokens`)).body.tokens as Array<{ id: string; expiresAt: string | null }>;
      expect(listed.find((t) => t.id === byTtl.body.id)!.expiresAt).toBe(byTtl.body.expiresAt);
      expect(listed.find((t) => t.id === byDate.body.id)!.expiresAt).toBe(byDate.body.expiresAt);
      expect(listed.every((t) => t.expiresAt === null || typeof t.expiresAt === 'string')).toBe(true);
    });

    it('refuses an expiry out of bounds with 400', async () => {
      const bad = [
        { ttlSeconds: 10 },
        { ttlSeconds: 367 * 86_400 },
        { expiresAt: new Date(Date.now() - 60_000).toISOString() },
        { expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() },
        { expiresAt: 'tomorrow' },
        { ttlSeconds: 3600, expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      ];
      for (const extra of bad) {
        const response = await admin('POST', `${ws}/tokens`, { name: 'bad', role: 'viewer', ...extra });
        expect({ extra, status: response.status, code: response.body.error?.code }).toEqual({ extra, status: 400, code: 'VALIDATION_FAILED' });
      }
    });

    it('refuses an expired token with 401 at once, though it was cached a moment before', async () => {
      const expiresAt = new Date(Date.now() + 1500);
      const created = await admin('POST', `${ws}/tokens`, { name: 'brief', role: 'viewer', expiresAt: expiresAt.toISOString() });
      const brief = apiClient(platform.gatewayUrl, created.body.token);
      // Used (and so cached for TOKEN_CACHE_MS, 5 s) before it expires.
      expect((await brief('GET', `${ws}/events`)).status).toBe(200);
      // Waiting for an instant on the clock, not for the system to do something.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now()) + 20));
      const after = await brief('GET', `${ws}/events`);
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('UNAUTHENTICATED');
      expect((await brief('GET', '/v1/whoami')).status).toBe(401);
    });
  });

  describe('GET /v1/whoami', () => {
    it("answers an API token's workspace, role and token id", async () => {
      const listed = (await admin('GET', `${ws}/tokens`)).body.tokens as Array<{ id: string; name: string }>;
      const me = await apiClient(platform.gatewayUrl, viewerToken)('GET', '/v1/whoami');
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        tokenId: listed.find((t) => t.name === 'dash')!.id,
        tokenType: 'api',
        workspace: { id: acmeId, slug: 'acme' },
        userId: expect.any(String),
        userName: 'acme admin',
        role: 'viewer',
        expiresAt: null,
        agent: null,
      });
      expect((await admin('GET', '/v1/whoami')).body).toMatchObject({ role: 'admin', workspace: { slug: 'acme' } });
    });

    it("answers an agent token's agent and run", async () => {
      const agentId = (await admin('POST', `${ws}/agents`, spec('whoami-bot'))).body.id;
      const runId = await insertRun(agentId, 'running', 1);
      const { token } = await new SqlAgentTokens(sql).mint({ workspaceId: acmeId, runId, agentId, depth: 1, ttlMs: 60_000 });
      const me = await apiClient(platform.gatewayUrl, token)('GET', '/v1/whoami');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ tokenType: 'agent', role: 'member', workspace: { id: acmeId, slug: 'acme' }, agent: { agentId, runId, depth: 1 } });
      expect(Date.parse(me.body.expiresAt)).toBeGreaterThan(Date.now());
    });

    it('is 401 without a valid token', async () => {
      expect((await apiClient(platform.gatewayUrl)('GET', '/v1/whoami')).status).toBe(401);
      expect((await apiClient(platform.gatewayUrl, 'sy_not-a-token')('GET', '/v1/whoami')).status).toBe(401);
    });
  });

  describe("a deleted agent's history", () => {
    it('keeps its versions readable; the agent itself is 404 with when it was deleted', async () => {
      const id = (await admin('POST', `${ws}/agents`, spec('gone-bot'))).body.id;
      await admin('PUT', `${ws}/agents/${id}`, spec('gone-bot', { task: 'second' }));
      expect((await admin('DELETE', `${ws}/agents/${id}`)).status).toBe(204);

      const versions = await admin('GET', `${ws}/agents/${id}/versions`);
      expect(versions.status).toBe(200);
      expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
      const second = await admin('GET', `${ws}/agents/${id}/versions/2`);
      expect(second.status).toBe(200);
      expect(second.body.spec.task).toBe('second');
      const missing = await admin('GET', `${ws}/agents/${id}/versions/3`);
      expect(missing.body.error.code).toBe('AGENT_VERSION_NOT_FOUND');

      const head = await admin('GET', `${ws}/agents/${id}`);
      expect(head.status).toBe(404);
      expect(head.body.error).toMatchObject({ code: 'AGENT_NOT_FOUND', details: { id, deletedAt: expect.any(String) } });
      // Still not editable, and an unknown id is not found without a deletedAt.
      expect((await admin('PUT', `${ws}/agents/${id}`, spec('gone-bot'))).status).toBe(404);
      const unknown = await admin('GET', `${ws}/agents/${randomUUID()}/versions`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.details.deletedAt).toBeUndefined();
    });

    it('is not readable from another workspace', async () => {
      const id = (await admin('POST', `${ws}/agents`, spec('private-bot'))).body.id;
      await admin('DELETE', `${ws}/agents/${id}`);
      const other = apiClient(platform.gatewayUrl, otherToken);
      expect((await other('GET', `/v1/workspaces/other/agents/${id}/versions`)).status).toBe(404);
      expect((await other('GET', `/v1/workspaces/other/agents/${id}/versions/1`)).status).toBe(404);
    });
  });

  /** A run of the agent inserted as the matcher and runner would leave it. */
  async function insertRun(agentId: string, status: string, depth = 0): Promise<string> {
    const id = newId();
    const eventId = randomUUID();
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, depth, session_id, started_at, ended_at)
       VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', $6::"RunStatus", $7, $8, now(), CASE WHEN $6 IN ('completed', 'failed', 'cancelled') THEN now() END)`,
      [id, acmeId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, status, depth, randomUUID()],
    );
    return id;
  }
});
