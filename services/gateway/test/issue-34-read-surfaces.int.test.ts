import { apiClient, freePort, openSse, spawnService, startTestPlatform, type ServiceProcess, type TestPlatform } from '@switchyard/testing';
import { envelope } from './agent-messages/envelopes';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 34 §5 against the real gateway process: the read API and the SSE
 * projection resume exactly from a cursor across a gateway SIGKILL and
 * restart, and the OpenAPI document (which issue 13's test holds equal to the
 * routes express serves) has no write route on the plane beside the producer.
 */
describe('issue 34: read-only surfaces of the observation plane', () => {
  const ws = '/v1/workspaces/reads';
  let platform: TestPlatform;
  let port: number;
  let api: Api;
  let token: string;
  const restarted: ServiceProcess[] = [];
  const stream = (headers: Record<string, string>, query = '') => openSse(`http://127.0.0.1:${port}${ws}/agent-messages/stream${query}`, { authorization: `Bearer ${token}`, ...headers });
  const observations = (events: { event?: string; id?: string; data: string }[]) => events.filter((e) => e.event === 'observation').map((e) => Number(e.id));
  const post = async (n: number) => {
    for (let i = 0; i < n; i++) expect((await api('POST', `${ws}/agent-messages`, envelope({ content: `note ${i}` }))).body.disposition).toBe('observed');
  };

  beforeAll(async () => {
    port = await freePort();
    platform = await startTestPlatform({ env: { PORT: String(port), AGENT_MESSAGE_STREAM_POLL_MS: '50', STREAM_AUTH_RECHECK_MS: '200' } });
    token = await platform.createWorkspace('reads');
    api = apiClient(platform.gatewayUrl, token);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(restarted.map((proc) => proc.stop('SIGTERM')));
    await platform?.stop();
  });

  it('the read API and the SSE projection resume exactly from a cursor across a gateway restart', async () => {
    await post(5);
    const first = await stream({}, '?since=0');
    expect(first.status).toBe(200);
    await waitForObservations(first, 5);
    expect(observations(first.events)).toEqual([1, 2, 3, 4, 5]);
    first.close();

    await platform.gateway.stop('SIGKILL');
    restarted.push(await spawnService('gateway', platform.env, { readyPattern: /gateway listening/, timeoutMs: 60_000 }));
    await post(3);

    const resumed = await stream({ 'last-event-id': '5' });
    await waitForObservations(resumed, 3);
    // One more after the catch-up: the next event is 9, so nothing was sent twice or skipped.
    await post(1);
    await waitForObservations(resumed, 4);
    expect(observations(resumed.events)).toEqual([6, 7, 8, 9]);
    resumed.close();

    const page = await api('GET', `${ws}/agent-messages?since=5`);
    expect(page.body.observations.map((o: { seq: number }) => o.seq)).toEqual([6, 7, 8, 9]);
    expect(page.body.next).toBe(9);
    expect((await api('GET', `${ws}/agent-messages?since=9`)).body).toEqual({ observations: [], next: 9 });
    // A fresh client without a cursor starts at the end: only what comes after.
    const fresh = await stream({});
    await post(1);
    await waitForObservations(fresh, 1);
    expect(observations(fresh.events)).toEqual([10]);
    fresh.close();
  });

  it('an open stream ends once its token is revoked', async () => {
    const created = await api('POST', `${ws}/tokens`, { name: 'wall', role: 'viewer' });
    expect(created.status).toBe(201);
    const wall = await openSse(`http://127.0.0.1:${port}${ws}/agent-messages/stream`, { authorization: `Bearer ${created.body.token}` });
    expect(wall.status).toBe(200);
    expect((await api('DELETE', `${ws}/tokens/${created.body.id}`)).status).toBe(204);
    const deadline = Date.now() + 20_000;
    while (!wall.events.some((e) => e.event === 'error')) {
      if (Date.now() > deadline) throw new Error(`no error event: ${JSON.stringify(wall.events)}`);
      await wall.waitFor(wall.events.length + 1, Math.max(1, deadline - Date.now())).catch(() => undefined);
    }
    expect(JSON.parse(wall.events.find((e) => e.event === 'error')!.data)).toMatchObject({ code: 'UNAUTHENTICATED' });
    wall.close();
  });

  it('the OpenAPI document has no write, ack, resend or command route on the plane beside the producer', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const plane = Object.entries(doc.paths).filter(([path]) => /agent-messages|peer/.test(path));
    const operations = plane.flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.filter((op) => !op.startsWith('GET '))).toEqual(['POST /v1/workspaces/{ws}/agent-messages']);
    expect(operations.length).toBeGreaterThanOrEqual(5);
    // And the routes answer so: anything else on a plane path is 405 or 404, never a change.
    for (const method of ['PUT', 'PATCH', 'DELETE']) expect([404, 405]).toContain((await api(method, `${ws}/agent-messages`, {})).status);
    expect([404, 405]).toContain((await api('POST', `${ws}/agent-messages/quarantine`, {})).status);
    expect([404, 405]).toContain((await api('POST', `${ws}/agent-messages/some-message-id/ack`, {})).status);
  });
});

/** Waits (with a deadline) until the connection has received `count` observation events. */
async function waitForObservations(connection: Awaited<ReturnType<typeof openSse>>, count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (connection.events.filter((e) => e.event === 'observation').length < count) {
    if (Date.now() > deadline) throw new Error(`only ${connection.events.length} events: ${JSON.stringify(connection.events)}`);
    await connection.waitFor(connection.events.length + 1, Math.max(1, deadline - Date.now())).catch(() => undefined);
  }
}
