import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { apiClient, spawnService, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Why this exists: "Redis is down" must be shown without touching the shared
 * Redis on 6379 that every other test uses. This runs a `redis-server` of the
 * test's own on a free port, keeping nothing on disk, that the test can stop
 * and start again on the same port.
 */
async function startOwnRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(async () => /Ready to accept connections/.test(output), { what: 'own redis-server ready' });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Issue 13: while a store is down, requests answer `503 UNAVAILABLE` with
 * `Retry-After` (so that clients retry), not `500`: writes while the
 * gateway's Redis is stopped, and any request while its PostgreSQL refuses
 * connections. Once Redis is back, writes succeed again.
 */
describe('issue 13: stores down', () => {
  let platform: TestPlatform;
  let redisPort: number;
  let redis: ChildProcess;
  let api: ReturnType<typeof apiClient>;
  const ws = '/v1/workspaces/acme';
  const fact = { kind: 'build.failed', subject: { type: 'build', id: 'b1' } };

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startOwnRedis(redisPort);
    platform = await startTestPlatform({ env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` } });
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
    if (redis) await stopProcess(redis);
  });

  it('answers writes with 503 and Retry-After while Redis is stopped, and accepts them once it is back', async () => {
    expect((await api('POST', `${ws}/events`, fact)).status).toBe(202);
    await stopProcess(redis);
    const writes: Array<[string, string, unknown]> = [
      ['POST', `${ws}/events`, fact],
      ['POST', `${ws}/events:batch`, { events: [fact, fact] }],
      ['POST', `${ws}/stream-tickets`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const response = await api(method, path, body);
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({ path, status: 503, code: 'UNAVAILABLE' });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Reads come from PostgreSQL and still work.
    expect((await api('GET', `${ws}/events`)).status).toBe(200);
    expect((await api('GET', '/healthz')).status).toBe(200);

    redis = await startOwnRedis(redisPort);
    await waitFor(async () => (await api('POST', `${ws}/events`, fact)).status === 202, { what: 'writes accepted again' });
  });

  it('answers 503 with Retry-After while PostgreSQL refuses connections', async () => {
    const deadDatabase = `postgresql://postgres@127.0.0.1:${await freePort()}/nowhere`;
    const gateway = await spawnService('gateway', { ...platform.env, DATABASE_URL: deadDatabase }, { readyPattern: /gateway listening/ });
    try {
      const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())![1];
      const response = await apiClient(`http://127.0.0.1:${port}`, 'sy_unknown-but-well-formed')('GET', `${ws}/events`);
      expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 503, code: 'UNAVAILABLE' });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await gateway.stop();
    }
  });
});
