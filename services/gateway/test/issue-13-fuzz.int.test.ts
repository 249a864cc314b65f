import { createHmac } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { newSecretsKey } from '@switchyard/core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { scriptedAgent } from './run-rows';

/** Requests per run: bounded so that the whole file stays well under a minute on a 2-core machine. */
const RUNS = 600;
/** Signed webhook deliveries (issue 36): they pass the signature, so their bodies and headers reach the mapping. */
const DELIVERY_RUNS = 200;
const WEBHOOK_SECRET = 'fuzz-webhook-secret-0123456789abcdef';
const webhook = { verifier: 'github', secret: WEBHOOK_SECRET, subject: { type: 'repository', idPath: '$.repository.full_name' } };
const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** One operation of the OpenAPI document: its method, path template and query parameter names. */
interface Operation {
  method: string;
  template: string;
  query: string[];
}

/** One generated request, before it is sent. */
interface FuzzRequest {
  operation: Operation;
  params: Record<string, string>;
  query: Array<[string, string]>;
  body: { text: string } | undefined;
  contentType: string | undefined;
  encoding: { name: string; truthful: boolean } | undefined;
  auth: 'own' | 'foreign' | 'none' | 'garbage';
}

/** Operations in the gateway's own OpenAPI document, so that a new route is fuzzed without editing this test; `/mcp` always. */
function operationsOf(doc: { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const query = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      operations.push({ method, template, query });
    }
  }
  if (!operations.some((o) => o.template === '/mcp')) operations.push({ method: 'post', template: '/mcp', query: [] });
  return operations;
}

// Text PostgreSQL cannot store, text percent-decoding cannot read, and other edges.
const NASTY_STRINGS = ['\u0000', 'a\u0000b', '\uD800', 'x\uDC00y', '\uDBFF', '', ' ', '😀', 'é', '\\', '"', "'; DROP TABLE runs; --", '../../etc/passwd', '%', '*', '**', 'a'.repeat(5_000)];
const BAD_PERCENT = ['%E0%A4%A', '%', '%zz', '%00', '%C0%80', '%ED%A0%80', '%FF', 'a%2', '%25%', '%2F..%2F'];

/**
 * Issue 13: a property-based fuzz over every route of the gateway's OpenAPI
 * document (and `/mcp`), against the real gateway and event-log processes:
 * arbitrary and nasty bodies (any JSON, NUL and lone surrogates, 5,000-deep
 * nesting, wrong types, oversized, not JSON), path ids (bad percent-encoding,
 * unknown and other workspaces' ids), queries, content types, lying
 * Content-Encodings and credentials. No response is ≥ 500, and afterwards the
 * platform still serves: health, and a valid fact accepted and stored.
 */
describe('issue 13: fuzzing the gateway door', () => {
  let platform: TestPlatform;
  let tokens: { own: string; foreign: string };
  let operations: Operation[];
  const ids: { own: string[]; foreign: string[] } = { own: [], foreign: [] };

  beforeAll(async () => {
    // With a key, the secrets routes answer; without one they are a documented 503.
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey(), WEBHOOK_RATE_LIMIT_PER_SECOND: '100000' } });
    tokens = { own: await platform.createWorkspace('acme'), foreign: await platform.createWorkspace('other') };
    const acme = apiClient(platform.gatewayUrl, tokens.own);
    const other = apiClient(platform.gatewayUrl, tokens.foreign);
    const fact = { kind: 'build.failed', subject: { type: 'build', id: 'b1' } };
    ids.own.push((await acme('POST', '/v1/workspaces/acme/agents', scriptedAgent('mine'))).body.id, (await acme('POST', '/v1/workspaces/acme/events', fact)).body.id);
    ids.foreign.push((await other('POST', '/v1/workspaces/other/agents', scriptedAgent('theirs'))).body.id, (await other('POST', '/v1/workspaces/other/events', fact)).body.id);
    expect((await acme('PUT', '/v1/workspaces/acme/webhooks/gh', webhook)).status).toBe(201);
    expect((await other('PUT', '/v1/workspaces/other/webhooks/theirs', webhook)).status).toBe(201);
    ids.own.push('gh');
    ids.foreign.push('theirs');
    // Schedules (issue 30): own and foreign ids for /schedules/{id}, /fire and /fires.
    const schedule = { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris' };
    ids.own.push((await acme('POST', '/v1/workspaces/acme/schedules', schedule)).body.id);
    ids.foreign.push((await other('POST', '/v1/workspaces/other/schedules', schedule)).body.id);
    // A shipped template's id (issue 32, decision 0049), so adopt bodies reach the command too.
    ids.own.push('scorecard-sentinel');
    operations = operationsOf((await acme('GET', '/v1/openapi.json')).body);
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it(`answers ${RUNS} generated requests over every route with no status ≥ 500, and still serves after`, async () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    // Routes added since are in the document, so they are fuzzed too (the operations overview: its `window`).
    expect(operations).toContainEqual({ method: 'get', template: '/v1/workspaces/{ws}/overview', query: ['window'] });
    // The people routes (issue 36, decision 0042).
    for (const [method, template] of [
      ['get', '/v1/workspaces/{ws}/members'],
      ['patch', '/v1/workspaces/{ws}/members/{userId}'],
      ['delete', '/v1/workspaces/{ws}/members/{userId}'],
      ['post', '/v1/workspaces/{ws}/members/invitations'],
      ['post', '/v1/invitations/accept'],
      ['post', '/v1/sign-in-links/redeem'],
      // First-party templates (issue 32, decision 0049).
      ['get', '/v1/workspaces/{ws}/templates'],
      ['post', '/v1/workspaces/{ws}/templates/{id}/adopt'],
      // Conversational crafting (issue 32, decision 0056).
      ['post', '/v1/workspaces/{ws}/agents/craft'],
    ]) {
      expect(operations).toContainEqual({ method, template, query: [] });
    }
    // Issue 34's observation plane: its producer and its reads.
    expect(operations).toContainEqual({ method: 'post', template: '/v1/workspaces/{ws}/agent-messages', query: [] });
    expect(operations).toContainEqual({ method: 'get', template: '/v1/workspaces/{ws}/agent-messages/{messageId}/content', query: [] });
    expect(operations).toContainEqual({ method: 'post', template: '/v1/workspaces/{ws}/schedules/{id}/fire', query: [] });
    // Backfills (issue 30, decision 0055): a dry run or a batch, and its stop.
    expect(operations).toContainEqual({ method: 'post', template: '/v1/workspaces/{ws}/agents/{id}/backfill', query: [] });
    expect(operations).toContainEqual({ method: 'post', template: '/v1/workspaces/{ws}/agents/{id}/backfills/{batchId}/stop', query: [] });
    await fc.assert(
      fc.asyncProperty(requestArbitrary(operations, ids), async (request) => {
        const { status, url, text } = await send(request);
        if (status >= 500) throw new Error(`${status} for ${request.operation.method.toUpperCase()} ${url}: ${text.slice(0, 300)}`);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );

    const api = apiClient(platform.gatewayUrl, tokens.own);
    expect((await api('GET', '/healthz')).status).toBe(200);
    expect((await api('GET', '/readyz')).status).toBe(200);
    const posted = await api('POST', '/v1/workspaces/acme/events', { kind: 'fuzz.done', subject: { type: 'fuzz', id: '1' } });
    expect(posted.status).toBe(202);
    await waitFor(async () => (await api('GET', `/v1/workspaces/acme/events/${posted.body.id}`)).status === 200, { what: 'the fact after fuzzing stored' });
  }, 120_000);

  it(`answers ${DELIVERY_RUNS} validly signed webhook deliveries of any body and headers with 202 or a stable 4xx`, async () => {
    // The route fuzz above may have deleted or replaced it.
    expect((await apiClient(platform.gatewayUrl, tokens.own)('PUT', '/v1/workspaces/acme/webhooks/gh', webhook)).status).toBeLessThan(300);
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(signedDeliveryArbitrary, async ({ body, event, delivery }) => {
        const raw = Buffer.from(body.text);
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex')}` };
        if (event !== undefined) headers['x-github-event'] = event;
        if (delivery !== undefined) headers['x-github-delivery'] = delivery;
        const response = await fetch(`${platform.gatewayUrl}/v1/workspaces/acme/webhooks/gh`, { method: 'POST', headers, body: raw });
        const text = await response.text();
        seen.add(response.status);
        if (![202, 400, 409, 413].includes(response.status)) throw new Error(`${response.status} for a signed delivery ${body.text.slice(0, 200)}: ${text.slice(0, 300)}`);
      }),
      { numRuns: DELIVERY_RUNS, endOnFailure: true },
    );
    // The generator reaches both ends: deliveries recorded and deliveries refused past the signature.
    expect([202, 400].every((status) => seen.has(status))).toBe(true);
    expect((await apiClient(platform.gatewayUrl, tokens.own)('GET', '/readyz')).status).toBe(200);
  }, 120_000);
  it('answers 300 generated agent-message envelopes (issue 34) with 202 observed, replayed or quarantined, or 400 for a named sender, never another status', async () => {
    const now = Date.now();
    const valid = fc.record({
      schema: fc.constant('agent-message/v1'),
      messageId: fc.oneof(fc.uuid(), fc.constantFrom('fixed-message-1', 'fixed-message-2')),
      senderSeq: fc.nat(),
      thread: fc.constantFrom('t1', 'build-42'),
      createdAt: fc.constantFrom(new Date(now).toISOString(), new Date(now - 7_200_000).toISOString()),
      expiresAt: fc.constantFrom(new Date(now + 3_600_000).toISOString(), new Date(now - 3_600_000).toISOString()),
      topic: fc.constant('x'),
      content: fc.oneof(fc.string({ minLength: 1, maxLength: 50, unit: 'binary' }), fc.constantFrom('a\u0000b', 'AKIAABCDEFGHIJKLMNOP', 'x'.repeat(4_001))),
      deliveryMode: fc.constant('shadow'),
      canAuthorizeActions: fc.constant(false),
    });
    const body = fc.oneof(
      { arbitrary: valid.map((e) => JSON.stringify(e)), weight: 3 },
      fc.tuple(valid, fc.constantFrom(...NASTY_STRINGS), fc.constantFrom('messageId', 'thread', 'topic', 'content', 'createdAt', 'sender', 'extra')).map(([e, nasty, key]) => JSON.stringify({ ...e, [key]: nasty })),
      valid.map((e) => `${JSON.stringify(e).slice(0, -1)},"content":"again"}`),
      bodyArbitrary.map((b) => b?.text ?? ''),
    );
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await fetch(`${platform.gatewayUrl}/v1/workspaces/acme/agent-messages`, { method: 'POST', headers: { authorization: `Bearer ${tokens.own}`, 'content-type': 'application/json' }, body: text });
        const answer = (await response.json()) as { disposition?: string; reason?: string; error?: { code: string } };
        seen.add(answer.reason ?? answer.disposition ?? answer.error?.code ?? String(response.status));
        const ok = response.status === 202 || (response.status === 400 && answer.error?.code === 'AGENT_MESSAGE_SENDER_REFUSED') || (response.status === 413 && text.length > 1_000_000);
        if (!ok) throw new Error(`${response.status} for ${text.slice(0, 200)}: ${JSON.stringify(answer).slice(0, 300)}`);
      }),
      { numRuns: 300, endOnFailure: true },
    );
    expect([...seen]).toEqual(expect.arrayContaining(['observed', 'invalid', 'expired', 'duplicate_property']));
  }, 60_000);

  it('answers the audit read (issue 36) 200 with a page or 400 VALIDATION_FAILED for any query, never another status', async () => {
    const value = fc.oneof(
      fc.constantFrom(...BAD_PERCENT, ...NASTY_STRINGS.map(encodeURIComponentLoose), ids.own[0]!, 'token.*', '**', '0', '1', '200', '201', '-1', '1e3', '9007199254740993'),
      fc.string({ maxLength: 12 }).map(encodeURIComponentLoose),
    );
    const query = fc.array(fc.tuple(fc.constantFrom('actor', 'kind', 'before', 'limit', 'after', ''), value), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(query, async (pairs) => {
        const url = `${platform.gatewayUrl}/v1/workspaces/acme/audit?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
        const response = await fetch(url, { headers: { authorization: `Bearer ${tokens.own}` } });
        const body = (await response.json()) as { entries?: unknown[]; error?: { code: string } };
        const ok = response.status === 200 ? Array.isArray(body.entries) : response.status === 400 && body.error?.code === 'VALIDATION_FAILED';
        if (!ok) throw new Error(`${response.status} for ${url}: ${JSON.stringify(body).slice(0, 300)}`);
      }),
      { numRuns: 200, endOnFailure: true },
    );
  }, 60_000);

  it('answers retention settings (issue 36) 200 with what was saved or 400 VALIDATION_FAILED for any value, and a cursor behind nothing 200', async () => {
    const days = fc.oneof(
      fc.integer({ min: -5, max: 4000 }),
      fc.constantFrom(null, 0, 1, 3650, 3651, 1.5, -0, Number.MAX_SAFE_INTEGER, '30', '', true, [], {}),
      fc.anything({ maxDepth: 2 }),
    );
    const retention = fc.oneof(
      fc.record({ factsDays: days, transcriptsDays: days }, { requiredKeys: [] }),
      fc.record({ factsDays: days, extra: fc.anything({ maxDepth: 1 }) }),
      fc.anything({ maxDepth: 2 }),
    );
    const api = apiClient(platform.gatewayUrl, tokens.own);
    await fc.assert(
      fc.asyncProperty(retention, async (value) => {
        const response = await api('PUT', '/v1/workspaces/acme/settings', { retention: value });
        const ok =
          response.status === 200
            ? typeof response.body.retention?.factsDays === 'number' && typeof response.body.retention?.transcriptsDays === 'number'
            : response.status === 400 && response.body.error?.code === 'VALIDATION_FAILED';
        if (!ok) throw new Error(`${response.status} for retention ${JSON.stringify(value)}: ${JSON.stringify(response.body).slice(0, 300)}`);
      }),
      { numRuns: 150, endOnFailure: true },
    );
    // Nothing was purged in this workspace: any cursor is served.
    expect((await api('GET', '/v1/workspaces/acme/events?after=1')).status).toBe(200);
  }, 60_000);

  it('answers the people routes (issue 36) with their success or a stable 4xx for any body, never another status', async () => {
    const text = fc.oneof(fc.constantFrom(...NASTY_STRINGS, `syl_${'A'.repeat(43)}`, 'viewer', 'member', 'admin', 'owner'), fc.string({ maxLength: 120 }));
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ token: text, name: text }, { requiredKeys: [] }),
      fc.record({ role: text, extra: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['role'] }),
    );
    const base = '/v1/workspaces/acme';
    // Each route with what it may answer: the doors without a token, and the admin's routes (on ids nobody has).
    const routes = [
      { method: 'POST', path: '/v1/invitations/accept', allowed: ['400 VALIDATION_FAILED', '404 INVITATION_NOT_FOUND'] },
      { method: 'POST', path: '/v1/sign-in-links/redeem', allowed: ['400 VALIDATION_FAILED', '404 INVITATION_NOT_FOUND'] },
      { method: 'POST', path: `${base}/members/invitations`, allowed: ['201', '400 VALIDATION_FAILED'] },
      { method: 'PATCH', path: `${base}/members/00000000-0000-4000-8000-000000000000`, allowed: ['400 VALIDATION_FAILED', '404 MEMBER_NOT_FOUND'] },
      { method: 'PATCH', path: `${base}/members/${encodeURIComponent('\u0000')}`, allowed: ['400 VALIDATION_FAILED'] },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async (route, sent) => {
        const response = await apiClient(platform.gatewayUrl, tokens.own)(route.method, route.path, JSON.stringify(sent) ?? 'null');
        const answer = response.status < 300 ? String(response.status) : `${response.status} ${(response.body as any)?.error?.code}`;
        // A JSON text that is not an object or array (`"x"`, `3`) is refused by the door (strict JSON) for every route.
        if (answer === '400 MALFORMED_JSON' && (sent === null || typeof sent !== 'object')) return;
        if (!route.allowed.includes(answer)) throw new Error(`${answer} for ${route.method} ${route.path} ${JSON.stringify(sent)?.slice(0, 200)}`);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  }, 60_000);

  /** Sends a request and reads its status; a stream that opened (200 SSE) is closed at once. */
  async function send(request: FuzzRequest): Promise<{ status: number; url: string; text: string }> {
    const path = request.operation.template.replace(/\{(\w+)\}/g, (_, name: string) => request.params[name] ?? 'x');
    const query = request.query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
    const url = `${path}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (request.auth === 'own' || request.auth === 'foreign') headers.authorization = `Bearer ${tokens[request.auth]}`;
    if (request.auth === 'garbage') headers.authorization = 'Bearer sy_\u00ff garbage';
    if (request.contentType) headers['content-type'] = request.contentType;
    let body: Buffer | undefined = request.body ? Buffer.from(request.body.text) : undefined;
    if (body && request.encoding) {
      headers['content-encoding'] = request.encoding.name;
      if (request.encoding.truthful) body = encode(request.encoding.name, body);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    try {
      const response = await fetch(`${platform.gatewayUrl}${url}`, {
        method: request.operation.method.toUpperCase(),
        headers,
        body: request.operation.method === 'get' ? undefined : body,
        signal: controller.signal,
      });
      let text = '';
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) controller.abort();
      else text = await response.text();
      return { status: response.status, url, text };
    } finally {
      clearTimeout(timer);
    }
  }
});

function encode(name: string, body: Buffer): Buffer {
  if (name === 'gzip') return gzipSync(body);
  if (name === 'deflate') return deflateSync(body);
  if (name === 'br') return brotliCompressSync(body);
  return body;
}

/** A path parameter: a real id of the caller's workspace or another's, a random one, or text that is not an id at all. */
function paramArbitrary(name: string, ids: { own: string[]; foreign: string[] }): fc.Arbitrary<string> {
  if (name === 'ws') return fc.oneof({ arbitrary: fc.constant('acme'), weight: 8 }, fc.constant('other'), fc.constantFrom(...BAD_PERCENT), fc.string().map(encodeURIComponent));
  return fc.oneof(
    fc.constantFrom(...ids.own),
    fc.constantFrom(...ids.foreign),
    fc.uuid(),
    fc.constantFrom(...BAD_PERCENT),
    fc.constantFrom('API_KEY', 'a.b-c_d', '1', '-1', '0'),
    fc.string({ unit: 'binary', maxLength: 40 }).map((s) => encodeURIComponentLoose(s)),
  );
}

/** encodeURIComponent, with lone surrogates (which it refuses) sent as the raw UTF-8 bytes of one. */
function encodeURIComponentLoose(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/** A JSON body: any JSON value, objects with nasty strings or wrong types, deep nesting, oversized, or not JSON at all. */
const bodyArbitrary: fc.Arbitrary<{ text: string } | undefined> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ text: JSON.stringify(v) })), weight: 4 },
  {
    arbitrary: fc
      .dictionary(
        fc.constantFrom('kind', 'subject', 'payload', 'events', 'name', 'role', 'input', 'content', 'value', 'instructions', 'model', 'triggers', 'agentsPaused', 'jsonrpc', 'method', 'params', 'id', 'k\u0000', 'x\uD800', 'verifier', 'secret', 'idPath', 'signatureHeader', 'version', 'format', 'agents', 'secrets', 'source'),
        fc.oneof(fc.constantFrom<unknown>(...NASTY_STRINGS), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.constantFrom(...NASTY_STRINGS), { maxLength: 3 }), fc.object({ maxDepth: 2 })),
        { maxKeys: 6 },
      )
      .map((v) => ({ text: JSON.stringify(v) })),
    weight: 4,
  },
  fc.constant({ text: JSON.stringify({ kind: 'build.failed', subject: { type: 'build', id: 'b1' }, payload: { note: 'a\u0000b' } }) }),
  fc.constant({ text: JSON.stringify({ events: [{ kind: 'a.b', subject: { type: 't', id: '1' }, payload: { n: '\uD800' } }] }) }),
  fc.constant({ text: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'emit_event', arguments: { kind: 'a.b', subject: { type: 't', id: '1\u0000' } } } }) }),
  // An agent bundle (issue 32) whose agent is broken in a different way each time: it must be refused whole, never a 5xx.
  fc
    .record({ key: fc.oneof(fc.uuid(), fc.constantFrom(...NASTY_STRINGS)), name: fc.constantFrom(...NASTY_STRINGS, 'ok'), versions: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 2 }) })
    .map((agent) => ({ text: JSON.stringify({ format: 'switchyard.agents/v1', exportedAt: '2026-01-01T00:00:00Z', source: { workspace: 'acme' }, agents: [agent], secrets: [] }) })),
  // An adopt of a template (issue 32): a name that is taken, nasty or fine, a model choice right or wrong.
  fc
    .record({ name: fc.constantFrom(...NASTY_STRINGS, 'mine', 'sentinel-copy'), model: fc.constantFrom<unknown>('script', 'live', 'gpt', 1, null) })
    .map((adopt) => ({ text: JSON.stringify(adopt) })),
  fc.integer({ min: 65, max: 5_000 }).map((depth) => ({ text: '['.repeat(depth) + ']'.repeat(depth) })),
  fc.integer({ min: 65, max: 5_000 }).map((depth) => ({ text: '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) })),
  fc.constant({ text: JSON.stringify({ payload: { blob: 'x'.repeat(1_100_000) } }) }),
  fc.constantFrom({ text: '{' }, { text: 'not json' }, { text: '\u0000' }, { text: '"\\ud800"' }, { text: '1e999999' }, { text: '[1,]' }),
  fc.constant(undefined),
);

function requestArbitrary(operations: Operation[], ids: { own: string[]; foreign: string[] }): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((operation) => {
    const names = [...operation.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const params = fc.record(Object.fromEntries(names.map((name) => [name, paramArbitrary(name, ids)])) as Record<string, fc.Arbitrary<string>>);
    const queryName = operation.query.length > 0 ? fc.oneof(fc.constantFrom(...operation.query), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 });
    const queryValue = fc.oneof(
      fc.integer({ min: -5, max: 2_000 }).map(String),
      fc.constantFrom(...BAD_PERCENT, 'build.*', '**', 'completed', ids.own[0]!, ids.foreign[0]!, '%00', 'token.*', 'member.**', '9007199254740993'),
      fc.string({ maxLength: 20 }).map(encodeURIComponentLoose),
    );
    return fc.record({
      operation: fc.constant(operation),
      params,
      query: fc.array(fc.tuple(queryName, queryValue), { maxLength: 3 }),
      body: bodyArbitrary,
      contentType: fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 6 },
        fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/json; charset=utf-8', 'multipart/form-data; boundary=x'),
      ),
      encoding: fc.option(fc.record({ name: fc.constantFrom('gzip', 'deflate', 'br', 'zstd', 'identity', 'gzip, br'), truthful: fc.boolean() }), { nil: undefined, freq: 3 }),
      auth: fc.oneof({ arbitrary: fc.constant('own' as const), weight: 8 }, fc.constantFrom('foreign' as const, 'none' as const, 'garbage' as const)),
    });
  });
}

/** Header text fetch can send: printable ASCII (nasty for a kind or a delivery id, still a header). */
const headerText = (max: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${max}}$`));

/** A signed delivery's body, event and delivery id: GitHub-shaped bodies with nasty subject ids, any body of the main fuzz, headers missing or odd. */
const signedDeliveryArbitrary = fc.record({
  body: fc.oneof(
    {
      arbitrary: fc
        .record({ repository: fc.record({ full_name: fc.oneof(fc.constantFrom<unknown>(...NASTY_STRINGS), fc.string(), fc.integer(), fc.constant(null), fc.object({ maxDepth: 1 })) }), extra: fc.jsonValue({ maxDepth: 3 }) })
        .map((v) => ({ text: JSON.stringify(v) })),
      weight: 3,
    },
    { arbitrary: bodyArbitrary.map((body) => body ?? { text: '' }), weight: 2 },
    fc.constant({ text: '{"repository":{"full_name":"a/b"},"repository":{"full_name":"c/d"}}' }),
  ),
  event: fc.option(fc.oneof(fc.constantFrom('push', 'pull_request', 'Check Run', 'a..b', 'ü', '.', 'x'.repeat(250)), headerText(40)), { nil: undefined, freq: 8 }),
  delivery: fc.option(fc.oneof(fc.uuid(), fc.constant('reused-delivery-id'), headerText(140)), { nil: undefined, freq: 8 }),
});
