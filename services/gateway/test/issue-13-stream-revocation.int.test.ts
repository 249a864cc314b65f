import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SqlPool } from '@switchyard/db';
import { apiClient, setRunColumns, spawnService, startTestPlatform, type ServiceProcess, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { openStream, within } from './open-stream';
import { insertRun, scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

/** Long enough that only a store lookup, never the cache, can explain a stream closing. */
const CACHE_MS = '60000';
const RECHECK_MS = '300';

/**
 * Issue 13: revocation reaches live streams. Two gateway replicas with a
 * long token cache: a stream opened on one replica closes within seconds of
 * its token being revoked through the other; a ticket minted before the
 * revocation no longer opens a stream; an agent token's stream closes when
 * its run ends.
 */
describe('issue 13: revocation reaches live streams', () => {
  let platform: TestPlatform;
  let replica: ServiceProcess;
  let replicaUrl: string;
  let admin: Api;
  let pg: Client;
  let sql: SqlPool;
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    const env = { STREAM_AUTH_RECHECK_MS: RECHECK_MS, TOKEN_CACHE_MS: CACHE_MS };
    platform = await startTestPlatform({ env });
    replica = await spawnService('gateway', { ...platform.env, ...env }, { readyPattern: /gateway listening/ });
    replicaUrl = `http://127.0.0.1:${/"port":(\d+),"host"[^\n]*gateway listening/.exec(replica.output())![1]}`;
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
  }, 120_000);
  afterAll(async () => {
    await sql?.$disconnect();
    await pg?.end();
    await replica?.stop();
    await platform?.stop();
  });

  const viewerToken = async (name: string) => (await admin('POST', `${ws}/tokens`, { name, role: 'viewer' })).body as { id: string; token: string };

  it('closes a stream on another replica within seconds of its token being revoked', async () => {
    const viewer = await viewerToken('dashboard');
    const stream = await openStream(`${replicaUrl}${ws}/stream`, { authorization: `Bearer ${viewer.token}` });
    expect(stream.status).toBe(200);
    // Still open a while later: the recheck does not close a stream whose token works.
    expect(await within(stream.ended, 1_000)).toBe(false);
    expect((await admin('DELETE', `${ws}/tokens/${viewer.id}`)).status).toBe(204);
    expect(await within(stream.ended, 5_000)).toBe(true);
    expect(stream.text()).toContain('event: error\ndata: {"code":"UNAUTHENTICATED"');
  });

  it('refuses a stream ticket minted before its token was revoked, on either replica', async () => {
    const viewer = await viewerToken('browser');
    const api = apiClient(platform.gatewayUrl, viewer.token);
    const tickets = [(await api('POST', `${ws}/stream-tickets`)).body.ticket, (await api('POST', `${ws}/stream-tickets`)).body.ticket];
    // The replica caches the token as working (a request before the revocation).
    expect((await apiClient(replicaUrl, viewer.token)('GET', `${ws}/events`)).status).toBe(200);
    expect((await admin('DELETE', `${ws}/tokens/${viewer.id}`)).status).toBe(204);
    for (const [url, ticket] of [[replicaUrl, tickets[0]], [platform.gatewayUrl, tickets[1]]]) {
      const response = await fetch(`${url}${ws}/stream?ticket=${ticket}`);
      expect({ url, status: response.status, code: ((await response.json()) as any).error.code }).toEqual({ url, status: 401, code: 'UNAUTHENTICATED' });
    }
  });

  it('opens a stream with a ticket of a working token, and closes it when the token is revoked', async () => {
    const viewer = await viewerToken('tab');
    const { ticket } = (await apiClient(platform.gatewayUrl, viewer.token)('POST', `${ws}/stream-tickets`)).body;
    const stream = await openStream(`${replicaUrl}${ws}/stream?ticket=${ticket}`);
    expect(stream.status).toBe(200);
    expect((await admin('DELETE', `${ws}/tokens/${viewer.id}`)).status).toBe(204);
    expect(await within(stream.ended, 5_000)).toBe(true);
  });

  it("closes an agent token's stream when its run ends", async () => {
    const workspaceId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id as string;
    const agentId = (await admin('POST', `${ws}/agents`, scriptedAgent('watcher'))).body.id as string;
    const runId = await insertRun(pg, { workspaceId, agentId, status: 'running', sessionId: randomUUID() });
    const { token } = await new SqlAgentTokens(sql).mint({ workspaceId, runId, agentId, depth: 0, ttlMs: 60_000 });
    const stream = await openStream(`${replicaUrl}${ws}/stream`, { authorization: `Bearer ${token}` });
    expect(stream.status).toBe(200);
    expect(await within(stream.ended, 1_000)).toBe(false);
    await setRunColumns(pg, runId, { status: 'completed', ended_at: new Date() });
    expect(await within(stream.ended, 5_000)).toBe(true);
  });
});
