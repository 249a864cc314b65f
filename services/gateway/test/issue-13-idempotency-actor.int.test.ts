import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { callTool, connectMcp } from './mcp-client';

/**
 * Issue 13, item 8, over real HTTP and MCP against the real gateway and
 * event-log: a reused idempotencyKey with another content is
 * `409 IDEMPOTENCY_KEY_REUSED` naming the original id (while Redis remembers
 * the key and after it forgot it), a batch with one is refused whole, an
 * identical repeat stays `200`; facts posted with a person's token carry
 * `actor {type: "member", id: <user id>}`, and a producer cannot state the
 * actor (its claim is kept as `statedActor`).
 */
describe('issue 13: reused idempotency keys and the actor of posted facts', () => {
  let platform: TestPlatform;
  let api: ReturnType<typeof apiClient>;
  let pg: Client;
  let userId: string;
  let mcp: McpClient;

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('keys'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    userId = (await pg.query<{ user_id: string }>(`SELECT user_id::text AS user_id FROM api_tokens`)).rows[0]!.user_id;
    const member = (await api('POST', '/v1/workspaces/keys/tokens', { name: 'bot', role: 'member' })).body.token;
    mcp = await connectMcp(platform.gatewayUrl, member);
  });
  afterAll(async () => {
    await mcp.close();
    await pg.end();
    await platform.stop();
  });

  const rows = async () => Number((await pg.query('SELECT count(*) FROM platform_events')).rows[0].count);
  const ingestAdded = () => platform.factsRecorded();
  const fact = (extra: Record<string, unknown> = {}) => ({ kind: 'deploy.finished', subject: { type: 'service', id: 'api' }, payload: { ok: true, region: 'eu' }, ...extra });
  const storedFact = (id: string) =>
    waitFor(async () => {
      const got = await api('GET', `/v1/workspaces/keys/events/${id}`);
      return got.status === 200 ? got.body : undefined;
    }, { what: `fact ${id}` });

  it('answers a reused key with another content 409 with the original id, an identical repeat 200', async () => {
    const first = await api('POST', '/v1/workspaces/keys/events', fact({ idempotencyKey: 'deploy-1' }));
    expect(first.status).toBe(202);
    // Same content, keys in another order: the same fact.
    const same = await api('POST', '/v1/workspaces/keys/events', fact({ idempotencyKey: 'deploy-1', payload: { region: 'eu', ok: true } }));
    expect(same).toMatchObject({ status: 200, body: { id: first.body.id } });
    const added = await ingestAdded();
    for (const changed of [{ payload: { ok: false, region: 'eu' } }, { kind: 'deploy.failed' }, { subject: { type: 'service', id: 'web' } }, { statedActor: { type: 'service', id: 'ci' } }]) {
      const reused = await api('POST', '/v1/workspaces/keys/events', fact({ idempotencyKey: 'deploy-1', ...changed }));
      expect(reused.status).toBe(409);
      expect(reused.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { id: first.body.id, idempotencyKey: 'deploy-1', index: 0 } });
    }
    expect(await ingestAdded()).toBe(added);

    // Once Redis forgot the key, PostgreSQL answers the same.
    await storedFact(first.body.id);
    await platform.redis.redis.del(...(await platform.redis.redis.keys(`${platform.redis.prefix}:idem:*`)));
    const reusedLater = await api('POST', '/v1/workspaces/keys/events', fact({ idempotencyKey: 'deploy-1', payload: { ok: false } }));
    expect(reusedLater.status).toBe(409);
    expect(reusedLater.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { id: first.body.id, index: 0 } });
    expect(await api('POST', '/v1/workspaces/keys/events', fact({ idempotencyKey: 'deploy-1' }))).toMatchObject({ status: 200, body: { id: first.body.id } });
    expect(await ingestAdded()).toBe(added);
  });

  it('refuses a batch with one reused key whole, naming its index, and writes nothing of it', async () => {
    const first = await api('POST', '/v1/workspaces/keys/events', fact({ idempotencyKey: 'deploy-2' }));
    expect(first.status).toBe(202);
    await storedFact(first.body.id);
    const [added, stored] = [await ingestAdded(), await rows()];
    const fresh = fact({ idempotencyKey: 'deploy-3' });
    // Against Redis.
    const batch = await api('POST', '/v1/workspaces/keys/events:batch', { events: [fresh, fact(), fact({ idempotencyKey: 'deploy-2', kind: 'deploy.failed' })] });
    expect(batch.status).toBe(409);
    expect(batch.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { index: 2, id: first.body.id, idempotencyKey: 'deploy-2' } });
    // Within the batch itself: two facts, one key, two contents.
    const inBatch = await api('POST', '/v1/workspaces/keys/events:batch', { events: [fact(), fresh, fact({ idempotencyKey: 'deploy-3', kind: 'deploy.failed' })] });
    expect(inBatch.status).toBe(409);
    expect(inBatch.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { index: 2, earlierIndex: 1, idempotencyKey: 'deploy-3' } });
    expect(await ingestAdded()).toBe(added);
    expect(await rows()).toBe(stored);
    // Nothing was claimed either: the fresh key is free for its fact.
    const later = await api('POST', '/v1/workspaces/keys/events:batch', { events: [fresh, fact({ idempotencyKey: 'deploy-2' })] });
    expect(later.status).toBe(202);
    expect(later.body.results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'duplicate']);
  });

  it('gives emit_event the same refusal as a tool error', async () => {
    const input = { kind: 'deploy.finished', subject: { type: 'service', id: 'api' }, payload: { n: 1 }, idempotencyKey: 'mcp-reuse' };
    const first = await callTool(mcp, 'emit_event', input);
    expect(first).toMatchObject({ isError: false, body: { status: 'accepted' } });
    expect(await callTool(mcp, 'emit_event', input)).toMatchObject({ isError: false, body: { id: first.body.id, status: 'duplicate' } });
    const reused = await callTool(mcp, 'emit_event', { ...input, payload: { n: 2 } });
    expect(reused).toMatchObject({ isError: true, body: { error: { code: 'IDEMPOTENCY_KEY_REUSED', details: { id: first.body.id } } } });
  });

  it('attributes a fact posted with a person’s token to the member, and keeps a stated actor apart', async () => {
    const posted = await api('POST', '/v1/workspaces/keys/events', fact({ statedActor: { type: 'service', id: 'ci', name: 'CI' } }));
    expect(posted.status).toBe(202);
    const stored = await storedFact(posted.body.id);
    expect(stored.actor).toEqual({ type: 'member', id: userId, name: 'keys admin' });
    expect(stored.statedActor).toEqual({ type: 'service', id: 'ci', name: 'CI' });
    const batch = await api('POST', '/v1/workspaces/keys/events:batch', { events: [fact()] });
    expect((await storedFact(batch.body.ids[0])).actor).toEqual({ type: 'member', id: userId, name: 'keys admin' });
  });

  it('refuses an actor stated in the body (400 naming the path): attribution cannot be forged', async () => {
    const added = await ingestAdded();
    for (const actor of [{ type: 'member', id: 'someone-else' }, { type: 'agent', id: 'a1' }]) {
      const forged = await api('POST', '/v1/workspaces/keys/events', fact({ actor }));
      expect(forged.status).toBe(400);
      expect(forged.body.error.code).toBe('VALIDATION_FAILED');
      expect(forged.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['actor'], message: expect.stringContaining('statedActor') })]));
    }
    expect(await ingestAdded()).toBe(added);
  });
});
