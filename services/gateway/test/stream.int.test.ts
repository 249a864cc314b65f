import { apiClient, openSse, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/** The live stream: resume with Last-Event-ID exactly once and in order, from PostgreSQL when Redis trimmed. */
describe('SSE stream', () => {
  let platform: TestPlatform;
  let token: string;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SSE_HEARTBEAT_MS: '200' } });
    token = await platform.createWorkspace('live');
    api = apiClient(platform.gatewayUrl, token);
  });
  afterAll(() => platform.stop());

  const post = async (from: number, count: number) => {
    const response = await api('POST', '/v1/workspaces/live/events:batch', {
      events: Array.from({ length: count }, (_, i) => ({ kind: 'tick.happened', subject: { type: 'tick', id: String(from + i) }, payload: { n: from + i } })),
    });
    expect(response.status).toBe(202);
  };
  const seqs = (events: Array<{ id?: string; data: string }>) => events.map((e) => Number(e.id));
  const lastSeq = async () => (await api('GET', '/v1/workspaces/live/events?after=0&limit=1000')).body.events.at(-1)?.seq ?? 0;
  const url = `/v1/workspaces/live/stream`;

  it('resumes after a disconnect with exactly the missed facts, in order, including ones Redis trimmed', async () => {
    const first = await openSse(`${platform.gatewayUrl}${url}`, { authorization: `Bearer ${token}` });
    expect(first.status).toBe(200);
    await post(1, 100);
    const received = await first.waitFor(100);
    first.close();
    expect(seqs(received)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(JSON.parse(received[99]!.data)).toMatchObject({ seq: 100, kind: 'tick.happened', payload: { n: 100 } });

    // Missed while disconnected, then gone from Redis: only PostgreSQL has them now.
    await post(101, 100);
    await waitFor(async () => (await lastSeq()) === 200);
    await platform.redis.redis.xtrim(`${platform.redis.prefix}:facts`, 'MAXLEN', 0);

    const second = await openSse(`${platform.gatewayUrl}${url}`, { authorization: `Bearer ${token}`, 'last-event-id': received[99]!.id! });
    await second.waitFor(100);
    await post(201, 50); // live again
    await second.waitFor(150);
    // One more fact: once it arrives, anything sent before it (a repeat) would have too.
    await post(251, 1);
    const resumed = await second.waitFor(151);
    second.close();
    expect(seqs(resumed)).toEqual(Array.from({ length: 151 }, (_, i) => i + 101));
  });

  it('filters by kind glob and still resumes correctly', async () => {
    const from = await lastSeq();
    await api('POST', '/v1/workspaces/live/events:batch', {
      events: [
        { kind: 'deploy.started', subject: { type: 'd', id: '1' } },
        { kind: 'tick.happened', subject: { type: 't', id: '1' } },
        { kind: 'deploy.finished', subject: { type: 'd', id: '1' } },
      ],
    });
    const sse = await openSse(`${platform.gatewayUrl}${url}?kind=deploy.*`, { authorization: `Bearer ${token}`, 'last-event-id': String(from) });
    await sse.waitFor(2);
    // A later matching fact: once it arrives, the session has passed every fact before it.
    await api('POST', '/v1/workspaces/live/events', { kind: 'tick.happened', subject: { type: 't', id: '2' } });
    await api('POST', '/v1/workspaces/live/events', { kind: 'deploy.marked', subject: { type: 'd', id: '2' } });
    const events = await sse.waitFor(3);
    sse.close();
    expect(events.map((e) => JSON.parse(e.data).kind)).toEqual(['deploy.started', 'deploy.finished', 'deploy.marked']);
    expect(seqs(events)).toEqual([from + 1, from + 3, from + 5]);
  });

  it('names its start as the first id, so a client that reconnects before its first fact misses nothing', async () => {
    const start = await lastSeq();
    const raw = await fetch(`${platform.gatewayUrl}${url}`, { headers: { authorization: `Bearer ${token}` } });
    expect(raw.status).toBe(200);
    const reader = raw.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const opening = text.slice(0, text.indexOf('\n\n')).split('\n');
    expect(opening).toEqual(['retry: 2000', `id: ${start}`]);
    // Recorded while the client is away, before it saw any fact: resuming from the opening id brings them.
    await post(1_000, 3);
    const resumed = await openSse(`${platform.gatewayUrl}${url}`, { authorization: `Bearer ${token}`, 'last-event-id': String(start) });
    const events = await resumed.waitFor(3);
    resumed.close();
    expect(seqs(events)).toEqual([start + 1, start + 2, start + 3]);
  });

  it('sends heartbeats, and authenticates browsers with a single-use ticket instead of a token in the URL', async () => {
    const ticket = await api('POST', '/v1/workspaces/live/stream-tickets');
    expect(ticket.status).toBe(201);
    expect(ticket.body.ticket).toMatch(/^st_/);
    const raw = await fetch(`${platform.gatewayUrl}${url}?ticket=${ticket.body.ticket}`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const reader = raw.body!.getReader();
    let text = '';
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const reused = await fetch(`${platform.gatewayUrl}${url}?ticket=${ticket.body.ticket}`);
    expect(reused.status).toBe(401);
    expect(((await reused.json()) as { error: { code: string } }).error.code).toBe('STREAM_TICKET_INVALID');
    expect((await fetch(`${platform.gatewayUrl}${url}`)).status).toBe(401);
    expect((await fetch(`${platform.gatewayUrl}${url}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': 'abc' } })).status).toBe(400);
  });
});

/** Tenancy: a token of workspace A is refused on every route of workspace B. */
describe('tenancy', () => {
  let platform: TestPlatform;
  afterAll(() => platform.stop());

  it('refuses a token of workspace A on every route of workspace B, the stream included', async () => {
    platform = await startTestPlatform();
    const tokenA = await platform.createWorkspace('team-a');
    const tokenB = await platform.createWorkspace('team-b');
    const asA = apiClient(platform.gatewayUrl, tokenA);
    const asB = apiClient(platform.gatewayUrl, tokenB);
    const factB = await asB('POST', '/v1/workspaces/team-b/events', { kind: 'secret.thing', subject: { type: 's', id: '1' } });
    await waitFor(async () => (await asB('GET', `/v1/workspaces/team-b/events/${factB.body.id}`)).status === 200);
    const tokenOfB = (await asB('GET', '/v1/workspaces/team-b/tokens')).body.tokens[0].id;
    const fact = { kind: 'x.y', subject: { type: 's', id: '1' } };
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/v1/workspaces/team-b/events', fact],
      ['POST', '/v1/workspaces/team-b/events:batch', { events: [fact] }],
      ['GET', '/v1/workspaces/team-b/events'],
      ['GET', `/v1/workspaces/team-b/events/${factB.body.id}`],
      ['GET', '/v1/workspaces/team-b/stream'],
      ['POST', '/v1/workspaces/team-b/stream-tickets'],
      ['GET', '/v1/workspaces/team-b/tokens'],
      ['POST', '/v1/workspaces/team-b/tokens', { name: 'evil', role: 'admin' }],
      ['DELETE', `/v1/workspaces/team-b/tokens/${tokenOfB}`],
    ];
    for (const [method, path, body] of routes) {
      const response = await asA(method, path, body);
      expect([method, path, response.status, response.body?.error?.code]).toEqual([method, path, 403, 'WORKSPACE_FORBIDDEN']);
    }
    // A ticket issued to A opens only A's stream.
    const ticket = (await asA('POST', '/v1/workspaces/team-a/stream-tickets')).body.ticket;
    expect((await fetch(`${platform.gatewayUrl}/v1/workspaces/team-b/stream?ticket=${ticket}`)).status).toBe(403);
    // A's own stream never carries B's facts.
    const sse = await openSse(`${platform.gatewayUrl}/v1/workspaces/team-a/stream`, { authorization: `Bearer ${tokenA}`, 'last-event-id': '0' });
    await asB('POST', '/v1/workspaces/team-b/events', fact);
    await asA('POST', '/v1/workspaces/team-a/events', { kind: 'mine.only', subject: { type: 's', id: '1' } });
    await sse.waitFor(1);
    // B again, then A's second fact: once that arrives, B's would have come before it.
    await asB('POST', '/v1/workspaces/team-b/events', fact);
    await asA('POST', '/v1/workspaces/team-a/events', { kind: 'mine.again', subject: { type: 's', id: '2' } });
    const events = await sse.waitFor(2);
    sse.close();
    expect(events.map((e) => JSON.parse(e.data).workspace)).toEqual(['team-a', 'team-a']);
    // B's token was not touched.
    expect((await asB('GET', '/v1/workspaces/team-b/tokens')).body.tokens[0].revokedAt).toBeNull();
  });
});
