import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { mailboxStream, MAX_JSON_DEPTH } from '@switchyard/contracts';
import { toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { insertRun, scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 13, the gateway's door, over real HTTP against the real gateway and
 * event-log processes: text PostgreSQL cannot store is refused (400 naming
 * its path) in every body — a fact, a batch item, an MCP tool call, an agent
 * spec, a token name, a manual run's input, a steering message — and in
 * path ids and queries, with nothing stored, nothing dead-lettered and the
 * idempotency key left free; a lying Content-Encoding, malformed
 * percent-encoding and JSON nested 5,000 deep are 4xx, not 500.
 */
describe('issue 13: the gateway door', () => {
  let platform: TestPlatform;
  let api: Api;
  let pg: Client;
  let acmeId: string;
  let agentId: string;
  let token: string;
  const ws = '/v1/workspaces/acme';
  const fact = (payload: Record<string, unknown> = { note: 'ok' }, extra: Record<string, unknown> = {}) => ({
    kind: 'build.failed',
    subject: { type: 'build', id: 'b1' },
    payload,
    ...extra,
  });

  beforeAll(async () => {
    platform = await startTestPlatform();
    token = await platform.createWorkspace('acme');
    api = apiClient(platform.gatewayUrl, token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    agentId = (await api('POST', `${ws}/agents`, scriptedAgent('reviewer'))).body.id;
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const rows = async () => Number((await pg.query(`SELECT count(*) FROM platform_events WHERE kind = 'build.failed'`)).rows[0].count);
  const deadLetters = async () => {
    const keys = await platform.redis.redis.keys(`${platform.redis.prefix}:dlq*`);
    let total = 0;
    for (const key of keys) total += (await platform.redis.redis.type(key)) === 'stream' ? await platform.redis.redis.xlen(key) : 0;
    return total;
  };
  /** The unstorable-text refusal: 400 VALIDATION_FAILED whose details name `path`. */
  const refusedAt = (path: string) => ({
    status: 400,
    body: { error: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ message: expect.stringContaining(`${path}:`) })] } },
  });
  /** A raw JSON-RPC call of a platform tool on /mcp (stateless: no initialize needed). */
  const mcpCall = (name: string, args: unknown, headers: Record<string, string> = {}) =>
    api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, { accept: 'application/json, text/event-stream', ...headers });

  it('refuses a fact, a batch item and an MCP emit_event with U+0000 or a lone surrogate: nothing stored, nothing dead-lettered, the key free', async () => {
    const before = await rows();
    const nul = await api('POST', `${ws}/events`, fact({ note: 'a\u0000b' }, { idempotencyKey: 'issue-13-nul' }));
    expect(nul).toMatchObject(refusedAt('payload.note'));
    expect(nul.body.error.details[0].path).toEqual(['payload', 'note']);
    const batch = await api('POST', `${ws}/events:batch`, { events: [fact(), fact(), fact(), fact({ note: 'x\uD800y' })] });
    expect(batch).toMatchObject(refusedAt('events.3.payload.note'));
    const key = await api('POST', `${ws}/events`, fact({ ['k\u0000']: 1 }));
    expect(key).toMatchObject(refusedAt('payload.k\u0000'));
    const viaMcp = await mcpCall('emit_event', fact({ note: '\uDC00' }));
    expect(viaMcp).toMatchObject(refusedAt('params.arguments.payload.note'));

    // The key was never claimed: a clean retry with it is a new fact (202), and it is stored.
    const retry = await api('POST', `${ws}/events`, fact({ note: 'clean' }, { idempotencyKey: 'issue-13-nul' }));
    expect(retry.status).toBe(202);
    await waitFor(async () => (await api('GET', `${ws}/events/${retry.body.id}`)).status === 200, { what: 'the clean retry stored' });
    expect(await rows()).toBe(before + 1);
    expect(await deadLetters()).toBe(0);
  });

  it('refuses unstorable text in an agent spec, a token name, a manual run input, a secret name and a query', async () => {
    const spec = { ...scriptedAgent('nul-agent'), instructions: 'do\u0000it' };
    expect(await api('POST', `${ws}/agents`, spec)).toMatchObject(refusedAt('instructions'));
    expect(await api('PUT', `${ws}/agents/${agentId}`, spec)).toMatchObject(refusedAt('instructions'));
    expect(await api('POST', `${ws}/tokens`, { name: 'ci\uD83D', role: 'member' })).toMatchObject(refusedAt('name'));
    expect(await api('POST', `${ws}/agents/${agentId}/runs`, { input: 'go\u0000' })).toMatchObject(refusedAt('input'));
    expect(await api('PUT', `${ws}/secrets/api%00key`, { value: 'v' })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
    expect(await api('GET', `${ws}/runs?agentId=%00`)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
    const names = (await pg.query(`SELECT name FROM agents UNION ALL SELECT name FROM api_tokens`)).rows.map((r) => r.name as string);
    expect(names.some((name) => name.includes('\u0000') || /[\uD800-\uDFFF]/.test(name))).toBe(false);
    expect(Number((await pg.query(`SELECT count(*) FROM runs`)).rows[0].count)).toBe(0);
  });

  it('refuses a steering message with U+0000 at the door: nothing reaches the running run\'s mailbox', async () => {
    const sessionId = randomUUID();
    await insertRun(pg, { workspaceId: acmeId, agentId, status: 'running', sessionId });
    const mailbox = toKey(platform.redis.prefix, ...mailboxStream(sessionId));
    expect(await api('POST', `${ws}/sessions/${sessionId}/messages`, { content: 'stop\u0000now' })).toMatchObject(refusedAt('content'));
    expect(await platform.redis.redis.xlen(mailbox)).toBe(0);
    // The same message without the NUL is delivered: the refusal was the text's.
    expect((await api('POST', `${ws}/sessions/${sessionId}/messages`, { content: 'stop now' })).status).toBe(202);
    expect(await platform.redis.redis.xlen(mailbox)).toBe(1);
  });

  it('accepts a body in each Content-Encoding it names, and refuses one that lies (400) or is unknown (415), on REST and /mcp', async () => {
    const body = JSON.stringify(fact());
    const encoders: Record<string, (text: string) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const [encoding, encode] of Object.entries(encoders)) {
      const ok = await rawPost(`${ws}/events`, encode(body), { 'content-encoding': encoding });
      expect({ encoding, status: ok.status }).toEqual({ encoding, status: 202 });
      for (const path of [`${ws}/events`, `${ws}/events:batch`, `${ws}/agents`, '/mcp']) {
        const lying = await rawPost(path, Buffer.from(body), { 'content-encoding': encoding });
        expect({ encoding, path, status: lying.status, code: lying.body.error?.code }).toEqual({ encoding, path, status: 400, code: 'BODY_ENCODING_INVALID' });
      }
    }
    const unknown = await rawPost(`${ws}/events`, Buffer.from(body), { 'content-encoding': 'zstd' });
    expect({ status: unknown.status, code: unknown.body.error.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers malformed percent-encoding in every path id with 400, never 500', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const withIds = Object.entries(doc.paths).filter(([path]) => /\{(?!ws\})\w+\}/.test(path));
    expect(withIds.length).toBeGreaterThanOrEqual(11);
    for (const [template, operations] of withIds) {
      const path = template.replace('{ws}', 'acme').replace(/\{\w+\}/g, '%E0%A4%A');
      for (const method of Object.keys(operations).filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))) {
        const response = await api(method.toUpperCase(), path, method === 'get' || method === 'delete' ? undefined : {});
        expect({ method, template, status: response.status, code: response.body.error?.code }).toEqual({ method, template, status: 400, code: 'VALIDATION_FAILED' });
      }
    }
    expect((await api('GET', '/v1/workspaces/%E0%A4%A/events')).status).toBe(400);
  });

  it(`bounds the depth of every JSON body at ${MAX_JSON_DEPTH}: 5,000 levels is 400 JSON_TOO_DEEP, on REST and /mcp`, async () => {
    const deep = '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000);
    for (const path of [`${ws}/events`, `${ws}/events:batch`, `${ws}/agents`, `${ws}/agents/${agentId}/runs`, '/mcp']) {
      const response = await rawPost(path, Buffer.from(deep));
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 400,
        body: { error: { code: 'JSON_TOO_DEEP', message: expect.any(String), details: { maxDepth: MAX_JSON_DEPTH } } },
      });
    }
    // A payload nested well within the bound is accepted.
    const nested = JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)) as Record<string, unknown>;
    expect((await api('POST', `${ws}/events`, fact(nested))).status).toBe(202);
    expect((await api('GET', '/healthz')).status).toBe(200);
  });

  /** A POST of raw bytes as JSON, with the token (fetch would not send a body it did not encode itself otherwise). */
  async function rawPost(path: string, body: Buffer, headers: Record<string, string> = {}) {
    const response = await fetch(`${platform.gatewayUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: parsed };
  }
});
