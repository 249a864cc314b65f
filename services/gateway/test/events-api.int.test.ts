import { Client } from 'pg';
import { MAX_PAYLOAD_BYTES } from '@switchyard/contracts';
import { apiClient, spawnService, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * The events API over real HTTP against the real gateway and event-log
 * processes: happy paths, and every bad input with its status and code,
 * leaving no row and no stream entry.
 */
describe('events API', () => {
  let platform: TestPlatform;
  let token: string;
  let api: ReturnType<typeof apiClient>;
  let pg: Client;

  beforeAll(async () => {
    platform = await startTestPlatform();
    token = await platform.createWorkspace('acme');
    api = apiClient(platform.gatewayUrl, token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await platform.stop();
  });

  const ingestAdded = () => platform.factsRecorded();
  const rowCount = async () => Number((await pg.query('SELECT count(*) FROM platform_events')).rows[0].count);
  const fact = (extra: Record<string, unknown> = {}) => ({ kind: 'scorecard.completed', subject: { type: 'scorecard', id: 'sc_9' }, payload: { failures: 3 }, ...extra });

  it('accepts a fact (202), stores it and serves it by id and by cursor', async () => {
    const posted = await api('POST', '/v1/workspaces/acme/events', fact({ statedActor: { type: 'service', id: 'ci' } }));
    expect(posted.status).toBe(202);
    expect(posted.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const got = await waitFor(async () => {
      const response = await api('GET', `/v1/workspaces/acme/events/${posted.body.id}`);
      return response.status === 200 ? response : undefined;
    });
    expect(got.body).toMatchObject({ id: posted.body.id, workspace: 'acme', kind: 'scorecard.completed', subject: { type: 'scorecard', id: 'sc_9' }, payload: { failures: 3 }, actor: { type: 'member' }, statedActor: { type: 'service', id: 'ci' } });
    expect(got.body.seq).toBeGreaterThan(0);
    const page = await api('GET', '/v1/workspaces/acme/events?after=0&kind=scorecard.*');
    expect(page.status).toBe(200);
    expect(page.body.events.map((e: { id: string }) => e.id)).toContain(posted.body.id);
    expect(page.body.nextCursor).toBe(page.body.events.at(-1).seq);
  });

  it('resolves a repeated idempotencyKey to the original id with 200, in single and batch posts', async () => {
    const first = await api('POST', '/v1/workspaces/acme/events', fact({ idempotencyKey: 'build-77' }));
    const again = await api('POST', '/v1/workspaces/acme/events', fact({ idempotencyKey: 'build-77' }));
    expect(first.status).toBe(202);
    expect(again).toMatchObject({ status: 200, body: { id: first.body.id } });
    // Once persisted, the key resolves from PostgreSQL even if Redis forgot it.
    await waitFor(async () => (await api('GET', `/v1/workspaces/acme/events/${first.body.id}`)).status === 200);
    await platform.redis.redis.del(...(await platform.redis.redis.keys(`${platform.redis.prefix}:idem:*`)));
    const afterForget = await api('POST', '/v1/workspaces/acme/events', fact({ idempotencyKey: 'build-77' }));
    expect(afterForget).toMatchObject({ status: 200, body: { id: first.body.id } });

    const batch = await api('POST', '/v1/workspaces/acme/events:batch', {
      events: [fact({ idempotencyKey: 'build-77' }), fact({ idempotencyKey: 'b-1' }), fact({ idempotencyKey: 'b-1' }), fact()],
    });
    expect(batch.status).toBe(202);
    expect(batch.body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'accepted', 'duplicate', 'accepted']);
    expect(batch.body.ids[0]).toBe(first.body.id);
    expect(batch.body.ids[2]).toBe(batch.body.ids[1]);
  });

  it('pages by cursor with nextCursor and filters by kind glob', async () => {
    const batch = await api('POST', '/v1/workspaces/acme/events:batch', {
      events: Array.from({ length: 30 }, (_, i) => ({ kind: i % 2 ? 'build.failed' : 'build.passed', subject: { type: 'build', id: `b${i}` } })),
    });
    expect(batch.status).toBe(202);
    await waitFor(async () => (await api('GET', '/v1/workspaces/acme/events?kind=build.*&limit=1000')).body.events.length === 30);
    const seen: string[] = [];
    let after = 0;
    for (;;) {
      const page = await api('GET', `/v1/workspaces/acme/events?after=${after}&limit=7&kind=*.failed`);
      if (page.body.events.length === 0) break;
      seen.push(...page.body.events.map((e: { kind: string }) => e.kind));
      after = page.body.nextCursor;
    }
    expect(seen).toEqual(Array(15).fill('build.failed'));
  });

  describe('bad input leaves no row and no stream entry', () => {
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
      ['malformed JSON', () => api('POST', '/v1/workspaces/acme/events', '{"kind": '), 400, 'MALFORMED_JSON'],
      ['wrong types', () => api('POST', '/v1/workspaces/acme/events', { kind: 5, subject: 'x' }), 400, 'VALIDATION_FAILED'],
      ['bad kind', () => api('POST', '/v1/workspaces/acme/events', fact({ kind: 'Not A Kind' })), 400, 'VALIDATION_FAILED'],
      ['unknown field', () => api('POST', '/v1/workspaces/acme/events', fact({ extra: 1 })), 400, 'VALIDATION_FAILED'],
      ['causedBy from a producer', () => api('POST', '/v1/workspaces/acme/events', fact({ causedBy: { runId: 'r', agentId: 'a', depth: 0 } })), 400, 'VALIDATION_FAILED'],
      ['payload not an object', () => api('POST', '/v1/workspaces/acme/events', fact({ payload: [1, 2] })), 400, 'VALIDATION_FAILED'],
      ['payload over 64 KiB', () => api('POST', '/v1/workspaces/acme/events', fact({ payload: { blob: 'x'.repeat(MAX_PAYLOAD_BYTES) } })), 400, 'VALIDATION_FAILED'],
      ['body over 1 MiB', () => api('POST', '/v1/workspaces/acme/events:batch', { events: Array.from({ length: 20 }, () => fact({ payload: { blob: 'x'.repeat(60_000) } })) }), 413, 'PAYLOAD_TOO_LARGE'],
      ['not JSON content type', () => api('POST', '/v1/workspaces/acme/events', 'kind=a', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['empty batch', () => api('POST', '/v1/workspaces/acme/events:batch', { events: [] }), 400, 'VALIDATION_FAILED'],
      ['batch over 500', () => api('POST', '/v1/workspaces/acme/events:batch', { events: Array.from({ length: 501 }, () => fact()) }), 400, 'VALIDATION_FAILED'],
      ['one bad fact in a batch', () => api('POST', '/v1/workspaces/acme/events:batch', { events: [fact(), fact({ kind: '' })] }), 400, 'VALIDATION_FAILED'],
      ['no token', () => apiClient(platform.gatewayUrl)('POST', '/v1/workspaces/acme/events', fact()), 401, 'UNAUTHENTICATED'],
      ['unknown token', () => apiClient(platform.gatewayUrl, 'sy_nope')('POST', '/v1/workspaces/acme/events', fact()), 401, 'UNAUTHENTICATED'],
      ['unknown workspace', () => api('POST', '/v1/workspaces/nowhere/events', fact()), 403, 'WORKSPACE_FORBIDDEN'],
      ['unknown route', () => api('POST', '/v1/workspaces/acme/eventz', fact()), 404, 'ROUTE_NOT_FOUND'],
    ];
    it.each(cases)('%s', async (_name, request, status, code) => {
      const rowsBefore = await rowCount();
      const addedBefore = await ingestAdded();
      const response = await request();
      expect(response.status).toBe(status);
      expect(response.body.error.code).toBe(code);
      expect(typeof response.body.error.message).toBe('string');
      expect(await ingestAdded()).toBe(addedBefore);
      expect(await rowCount()).toBe(rowsBefore);
    });

    it('VALIDATION_FAILED carries the zod issues naming the path', async () => {
      const response = await api('POST', '/v1/workspaces/acme/events', { kind: 5, subject: { type: 'x' } });
      const paths = response.body.error.details.map((issue: { path: string[] }) => issue.path.join('.'));
      expect(paths).toEqual(expect.arrayContaining(['kind', 'subject.id']));
    });
  });

  it('answers unknown, malformed and other-workspace event ids with 404/400', async () => {
    expect((await api('GET', '/v1/workspaces/acme/events/0190f0f0-0000-7000-8000-000000000001')).body.error.code).toBe('EVENT_NOT_FOUND');
    expect((await api('GET', '/v1/workspaces/acme/events/not-a-uuid')).status).toBe(400);
    expect((await api('GET', '/v1/workspaces/acme/events?after=-1')).status).toBe(400);
    expect((await api('GET', '/v1/workspaces/acme/events?limit=5000')).status).toBe(400);
    expect((await api('GET', '/v1/workspaces/acme/events?kind=Bad[')).status).toBe(400);
    const otherToken = await platform.createWorkspace('other');
    const other = apiClient(platform.gatewayUrl, otherToken);
    const theirs = await other('POST', '/v1/workspaces/other/events', fact());
    await waitFor(async () => (await other('GET', `/v1/workspaces/other/events/${theirs.body.id}`)).status === 200);
    // Another workspace's id through my own workspace's path: not found, not leaked.
    expect((await api('GET', `/v1/workspaces/acme/events/${theirs.body.id}`)).status).toBe(404);
  });

  it('enforces roles: viewers read, members write, admins manage tokens', async () => {
    const viewer = await api('POST', '/v1/workspaces/acme/tokens', { name: 'dash', role: 'viewer' });
    const member = await api('POST', '/v1/workspaces/acme/tokens', { name: 'ci', role: 'member' });
    expect(viewer.status).toBe(201);
    expect(viewer.body.token).toMatch(/^sy_/);
    const asViewer = apiClient(platform.gatewayUrl, viewer.body.token);
    const asMember = apiClient(platform.gatewayUrl, member.body.token);
    expect((await asViewer('GET', '/v1/workspaces/acme/events')).status).toBe(200);
    expect((await asViewer('POST', '/v1/workspaces/acme/events', fact())).body.error).toMatchObject({ code: 'FORBIDDEN', details: { required: 'member', actual: 'viewer' } });
    expect((await asMember('POST', '/v1/workspaces/acme/events', fact())).status).toBe(202);
    expect((await asMember('GET', '/v1/workspaces/acme/tokens')).status).toBe(403);

    const listed = await api('GET', '/v1/workspaces/acme/tokens');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(viewer.body.token);
    expect(listed.body.tokens.find((t: { id: string }) => t.id === viewer.body.id).prefix).toBe(viewer.body.token.slice(0, 9));
    // Only the hash is stored.
    const stored = await pg.query('SELECT hash FROM api_tokens WHERE id = $1', [viewer.body.id]);
    expect(stored.rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0].hash).not.toContain(viewer.body.token);

    expect((await api('DELETE', `/v1/workspaces/acme/tokens/${viewer.body.id}`)).status).toBe(204);
    // Revoked tokens stop working (this gateway forgets it at once; others within TOKEN_CACHE_MS).
    expect((await asViewer('GET', '/v1/workspaces/acme/events')).status).toBe(401);
    expect((await api('DELETE', '/v1/workspaces/acme/tokens/0190f0f0-0000-7000-8000-000000000001')).body.error.code).toBe('TOKEN_NOT_FOUND');
    expect((await api('POST', '/v1/workspaces/acme/tokens', { name: 'x', role: 'owner' })).status).toBe(400);
  });

  it('rate-limits per token with 429 and Retry-After', async () => {
    const limited = await spawnService('gateway', { ...platform.env, RATE_LIMIT_PER_SECOND: '2' }, { readyPattern: /gateway listening/ });
    try {
      const port = /"port":(\d+)/.exec(limited.output())![1];
      const client = apiClient(`http://127.0.0.1:${port}`, token);
      const started = Date.now();
      const responses = [];
      for (let i = 0; i < 20; i++) responses.push(await client('GET', '/v1/workspaces/acme/events?limit=1'));
      // Fixed one-second windows: at most 2 per window the requests spanned, however slow the machine.
      const windows = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
      const admitted = responses.filter((r) => r.status === 200).length;
      const refused = responses.filter((r) => r.status === 429);
      expect(admitted + refused.length).toBe(20);
      expect(admitted).toBeLessThanOrEqual(2 * windows);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]!.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.stop();
    }
  });

  it('serves health, readiness, metrics and an OpenAPI document generated from the schemas', async () => {
    const anon = apiClient(platform.gatewayUrl);
    const posted = await api('POST', '/v1/workspaces/acme/events', fact());
    await waitFor(async () => (await api('GET', `/v1/workspaces/acme/events/${posted.body.id}`)).status === 200);
    expect((await anon('GET', '/healthz')).status).toBe(200);
    expect((await anon('GET', '/readyz')).body).toEqual({ ok: true, checks: { redis: 'ok', postgres: 'ok' } });
    // Not public: /metrics is only on the health port (issue 13).
    expect((await anon('GET', '/metrics')).status).toBe(404);
    const metrics = await fetch(`${platform.gatewayHealthUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/switchyard_http_requests_total\{method="POST",route="\/v1\/workspaces\/:ws\/events",status="202"\} \d+/);
    expect(metrics).toMatch(/switchyard_stream_pending\{stream="ingest",group="event-log"\} \d+/);
    const doc = (await anon('GET', '/v1/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/workspaces/{ws}/events', '/v1/workspaces/{ws}/events:batch', '/v1/workspaces/{ws}/stream']));
    expect(doc.components.schemas.PostEventRequest.properties.kind.pattern).toBe('^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$');
    expect(doc.components.schemas.PostEventRequest.additionalProperties).toBe(false);
  });
});
