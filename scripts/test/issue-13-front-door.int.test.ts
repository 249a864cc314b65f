import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, createTestRedis, freePort, spawnScript, waitFor, type ServiceProcess, type TestDatabase, type TestRedis } from '@switchyard/testing';
import { answeringHealthPorts, formatBanner, frontDoorState } from '../lib/banner.cjs';
import { writePlatformFile } from '../lib/platform-file.cjs';
import { deadPid, runAdmin as admin } from './lib/operator-processes';

/*
 * Issue 13, the front door as a new user meets it: the banner of `npm start` advertised a
 * dashboard that answered 404, and on the embedded-PostgreSQL path `npm run admin --
 * create-workspace` went to another database than the platform's. The admin CLI runs here as
 * the real process, with the environment a user's shell would give it.
 */
async function workspaceCount(db: TestDatabase, slug: string): Promise<number> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM workspaces WHERE slug = $1', [slug])).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

describe('npm run admin finds the platform npm start runs', () => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'platform-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(async () => {
    await db?.drop();
  });

  it('creates the workspace in the database a running npm start recorded', async () => {
    const file = path.join(dir, 'platform.json');
    writePlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:1', env: { DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379' } });
    const result = await admin(['create-workspace', 'recorded'], { SWITCHYARD_PLATFORM_FILE: file });
    expect(result).toMatchObject({ code: 0, stderr: expect.stringContaining(`the platform \`npm start\` runs (pid ${process.pid}`) });
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^sy_/);
    expect(await workspaceCount(db, 'recorded')).toBe(1);
  });

  it('with no configuration and no platform found, says so and stops', async () => {
    const file = path.join(dir, 'absent.json');
    const result = await admin(['create-workspace', 'nowhere'], { SWITCHYARD_PLATFORM_FILE: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`DATABASE_URL and REDIS_URL are not set and no platform started by \`npm start\` was found (${file})`);
    expect(result.stdout).toBe('');
  });

  it('does not use the record of a platform that is no longer running', async () => {
    const file = path.join(dir, 'platform.json');
    const pid = await deadPid();
    writePlatformFile(file, { pid, gatewayUrl: 'http://127.0.0.1:1', env: { DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379' } });
    const result = await admin(['create-workspace', 'stale'], { SWITCHYARD_PLATFORM_FILE: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`(npm start, pid ${pid}) is not running`);
    expect(await workspaceCount(db, 'stale')).toBe(0);
  });

  it('uses DATABASE_URL when it is set, whatever the record says', async () => {
    const file = path.join(dir, 'platform.json');
    writePlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:1', env: { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:6379' } });
    const result = await admin(['create-workspace', 'given'], { SWITCHYARD_PLATFORM_FILE: file, DATABASE_URL: db.url });
    expect(result.code).toBe(0);
    expect(await workspaceCount(db, 'given')).toBe(1);
  });
});

describe('the banner of npm start', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let platform: ServiceProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await platform?.stop('SIGTERM');
    await redis?.cleanup();
    await db?.drop();
  });

  // The one-process platform compiles every service through tsx: minutes on a loaded machine.
  it('names only addresses that answer, and every service’s health port', async () => {
    const names = ['EVENT_LOG', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER', 'GATEWAY'];
    const ports: Record<string, string> = {};
    for (const name of names) ports[`${name}_HEALTH_PORT`] = String(await freePort());
    const gatewayPort = await freePort();
    const env = { ...ports, DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, PORT: String(gatewayPort) };
    platform = await spawnScript('scripts/start-all.ts', env, { readyPattern: /"msg":"all services started"/, timeoutMs: 90_000 });

    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const healthPorts = await answeringHealthPorts(env);
    expect(healthPorts.map(({ name }) => name)).toEqual(expect.arrayContaining(['event-log', 'matcher', 'runner', 'approvals', 'notifier']));
    // GATEWAY_ADMIN_TOKEN unset: the dashboard is not served, and the banner says why.
    const frontDoor = await frontDoorState(gatewayUrl);
    expect(frontDoor).toEqual({ ui: true, dashboard: false });
    const banner = formatBanner({
      pid: 4242,
      gatewayUrl,
      frontDoor,
      healthPorts,
      redis: redis.url,
      postgres: db.url,
      secretsKey: 'from SECRETS_KEY',
      platformFile: '.data/platform.json',
    });
    expect(banner).not.toContain('/admin/queues');
    expect(banner).toContain('dashboard   not served: set GATEWAY_ADMIN_TOKEN');
    const pages = [...banner.matchAll(/http:\/\/127\.0\.0\.1:\d+\/\S*/g)].map(([url]) => url);
    expect(pages).toEqual([`${gatewayUrl}/`, `${gatewayUrl}/v1/openapi.json`]);
    expect(banner).toContain('/healthz /readyz /metrics on 127.0.0.1 ports:');
    for (const url of pages) expect({ url, status: (await fetch(url)).status }).toEqual({ url, status: 200 });
    for (const { name, port } of healthPorts) {
      for (const route of ['/healthz', '/readyz', '/metrics']) {
        const url = `http://127.0.0.1:${port}${route}`;
        // Readiness may lag a moment behind the banner (a store's first query: the gateway's Prisma
        // client starts its query compiler), so it is waited for; it must come.
        const answer = async () => {
          const res = await fetch(url);
          return { name, url, status: res.status, body: res.status === 200 ? '' : await res.text() };
        };
        let last = await answer();
        await waitFor(async () => (last = await answer()).status === 200, { timeoutMs: 20_000, what: url }).catch(() => undefined);
        expect(last).toEqual({ name, url, status: 200, body: '' });
      }
    }
  }, 150_000);
});
