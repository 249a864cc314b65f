import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { mailboxStream, MailboxEnvelopeSchema, MAX_MAILBOX_MESSAGE_CHARS, type MailboxEnvelope } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { SessionMailbox, toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { RedisMailbox } from '../src/adapters/redis-mailbox';
import { insertRun, scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

/**
 * Steering over real HTTP against the real gateway: a message posted to a
 * session lands on the session's mailbox stream in Redis as a valid
 * MailboxEnvelope, and only when some run of the session can still read it.
 * Runs are inserted with SQL (no matcher or runner runs here).
 */
describe('session messages API (steering)', () => {
  let platform: TestPlatform;
  let member: Api;
  let viewer: Api;
  let other: Api;
  let pg: Client;
  let acmeId: string;
  let otherId: string;
  let agentId: string;
  let theirAgent: string;
  let memberUserId: string;
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    platform = await startTestPlatform();
    const admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    member = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'ci', role: 'member' })).body.token);
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const ids = (await pg.query(`SELECT slug, id FROM workspaces`)).rows;
    acmeId = ids.find((r) => r.slug === 'acme').id;
    otherId = ids.find((r) => r.slug === 'other').id;
    memberUserId = (await pg.query(`SELECT user_id FROM api_tokens WHERE workspace_id = $1 AND name = 'ci'`, [acmeId])).rows[0].user_id;
    agentId = (await admin('POST', `${ws}/agents`, scriptedAgent('steered'))).body.id;
    theirAgent = (await other('POST', '/v1/workspaces/other/agents', scriptedAgent('theirs'))).body.id;
  });
  afterAll(async () => {
    await pg.end();
    await platform.stop();
  });

  /** A session whose runs have these statuses. */
  async function session(statuses: string[], workspaceId = acmeId, agent = agentId): Promise<string> {
    const sessionId = randomUUID();
    for (const status of statuses) await insertRun(pg, { workspaceId, agentId: agent, status, sessionId });
    return sessionId;
  }
  const mailboxKey = (sessionId: string) => toKey(platform.redis.prefix, ...mailboxStream(sessionId));
  const mailbox = async (sessionId: string) => {
    const entries = await platform.redis.redis.xrange(mailboxKey(sessionId), '-', '+');
    return entries.map(([, fields]) => {
      expect(fields[0]).toBe('envelope');
      return MailboxEnvelopeSchema.parse(JSON.parse(fields[1]!));
    });
  };
  const ingestAdded = () => platform.factsRecorded();

  it.each([['queued'], ['running'], ['awaiting_approval']])(
    "puts a member's message in a %s run's mailbox (202 {id}), as a valid envelope from that user, and nothing else",
    async (status) => {
      const sessionId = await session([status]);
      const factsBefore = await ingestAdded();
      const before = Date.now();
      const posted = await member('POST', `${ws}/sessions/${sessionId}/messages`, { content: 'look at the linker error first' });
      expect(posted.status).toBe(202);
      expect(posted.body).toEqual({ id: expect.any(String) });
      const [envelope, ...rest] = await mailbox(sessionId);
      expect(rest).toEqual([]);
      expect(envelope).toEqual<MailboxEnvelope>({
        schemaVersion: 1,
        id: posted.body.id,
        sessionId,
        from: { type: 'user', userId: memberUserId, name: 'acme admin' },
        content: 'look at the linker error first',
        sentAt: expect.any(String),
      });
      expect(Date.parse(envelope!.sentAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(await ingestAdded()).toBe(factsBefore);
    },
  );

  it('accepts while any run of the session is still active, and keeps the messages in order', async () => {
    const sessionId = await session(['completed', 'running']);
    for (const content of ['first', 'second', 'third']) {
      expect((await member('POST', `${ws}/sessions/${sessionId}/messages`, { content })).status).toBe(202);
    }
    expect((await mailbox(sessionId)).map((envelope) => envelope.content)).toEqual(['first', 'second', 'third']);
  });

  it('refuses a session whose runs have all ended (409 SESSION_NOT_ACTIVE), writing nothing', async () => {
    const sessionId = await session(['completed', 'failed', 'cancelled', 'dropped']);
    const posted = await member('POST', `${ws}/sessions/${sessionId}/messages`, { content: 'too late' });
    expect(posted.status).toBe(409);
    expect(posted.body.error).toMatchObject({ code: 'SESSION_NOT_ACTIVE', details: { id: sessionId } });
    expect(await platform.redis.redis.exists(mailboxKey(sessionId))).toBe(0);
  });

  it('issue 13: refuses a running run whose mailbox its run already closed with its last drain (409 SESSION_NOT_ACTIVE), writing nothing', async () => {
    const sessionId = await session(['running']);
    expect(await new SessionMailbox(platform.redis.redis, platform.redis.prefix).closeIfDrained(sessionId, undefined)).toBeNull();
    const posted = await member('POST', `${ws}/sessions/${sessionId}/messages`, { content: 'just too late' });
    expect(posted.status).toBe(409);
    expect(posted.body.error).toMatchObject({ code: 'SESSION_NOT_ACTIVE', details: { id: sessionId } });
    expect(await mailbox(sessionId)).toEqual([]);
  });

  it.each([
    ['an unknown session', async () => member('POST', `${ws}/sessions/${randomUUID()}/messages`, { content: 'hi' }), 404, 'SESSION_NOT_FOUND'],
    ["another workspace's session", async () => member('POST', `${ws}/sessions/${await session(['running'], otherId, theirAgent)}/messages`, { content: 'hi' }), 404, 'SESSION_NOT_FOUND'],
    ['a viewer', async () => viewer('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: 'hi' }), 403, 'FORBIDDEN'],
    ["another workspace's token", async () => other('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: 'hi' }), 403, 'WORKSPACE_FORBIDDEN'],
    ['a session id that is not a UUID', async () => member('POST', `${ws}/sessions/nope/messages`, { content: 'hi' }), 400, 'VALIDATION_FAILED'],
    ['no content', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, {}), 400, 'VALIDATION_FAILED'],
    ['empty content', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: '' }), 400, 'VALIDATION_FAILED'],
    ['content that is not a string', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: ['hi'] }), 400, 'VALIDATION_FAILED'],
    ['an unknown field', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: 'hi', from: 'admin' }), 400, 'VALIDATION_FAILED'],
    ['content over the limit', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: 'x'.repeat(MAX_MAILBOX_MESSAGE_CHARS + 1) }), 400, 'VALIDATION_FAILED'],
    ['a body over the body limit', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, { content: 'x'.repeat(1_100_000) }), 413, 'PAYLOAD_TOO_LARGE'],
    ['malformed JSON', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, '{"content": '), 400, 'MALFORMED_JSON'],
    ['a text body', async () => member('POST', `${ws}/sessions/${await session(['running'])}/messages`, 'hi', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('refuses %s, writing nothing', async (_what, call, status, code) => {
    const keysBefore = await mailboxKeys();
    const response = await call();
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(await mailboxKeys()).toEqual(keysBefore);
  });

  it('trims a mailbox nobody drains to about 1000 entries (MAXLEN ~)', async () => {
    const box = new RedisMailbox({ redis: platform.redis.redis, prefix: platform.redis.prefix });
    const sessionId = randomUUID();
    const envelope = (content: string): MailboxEnvelope => ({
      schemaVersion: 1, id: newId(), sessionId, from: { type: 'user', userId: memberUserId }, content, sentAt: new Date().toISOString(),
    });
    for (let i = 0; i < 1300; i++) await box.post(envelope(`m${i}`));
    const length = await platform.redis.redis.xlen(mailboxKey(sessionId));
    expect(length).toBeGreaterThanOrEqual(1000);
    expect(length).toBeLessThan(1300);
    const [newest] = await platform.redis.redis.xrevrange(mailboxKey(sessionId), '+', '-', 'COUNT', 1);
    expect(MailboxEnvelopeSchema.parse(JSON.parse(newest![1][1]!)).content).toBe('m1299');
  });

  async function mailboxKeys(): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await platform.redis.redis.scan(cursor, 'MATCH', `${platform.redis.prefix}:mailbox:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    return keys.sort();
  }
});
