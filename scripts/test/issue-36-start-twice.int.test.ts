import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newSecretsKey } from '@switchyard/core';
import { createTestDatabase, createTestRedis, freePort, type TestDatabase, type TestRedis } from '@switchyard/testing';
import { recordText } from '../lib/platform-file.cjs';
import { deadPid, runAdmin, spawnStart, type StartProcess } from './lib/operator-processes';

/*
 * Issue 36, the front door: `npm start` run a second time printed "Switchyard is running.",
 * crashed on EADDRINUSE with a raw stack and deleted the running instance's platform file, so
 * `npm run admin` then said no platform ran. Here `node scripts/start.mjs` (what `npm start`
 * runs) runs as a real process on a real Redis and PostgreSQL, as a person's shell would run it.
 */
jest.setTimeout(180_000);

/** What a start prints when it goes past its claim: installing, generating, building, migrating. */
const WORK = /installing dependencies|db:generate|ui:build|db:migrate|migration|\[ui\]|prisma/i;
const ADMIN_TOKEN = 'front-door-admin-token-0123456789abcdef';

describe('npm start, twice (real processes)', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let dir: string;
  let platformFile: string;
  let env: Record<string, string>;
  let gatewayUrl: string;
  const starts: StartProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await createTestRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'start-twice-'));
    platformFile = path.join(dir, 'platform.json');
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    const healthPorts = Object.fromEntries(['GATEWAY', 'EVENT_LOG', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER'].map((name) => [`${name}_HEALTH_PORT`, '0']));
    env = {
      ...healthPorts,
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      PORT: String(port),
      SECRETS_KEY: newSecretsKey(),
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      SWITCHYARD_PLATFORM_FILE: platformFile,
    };
  });

  afterAll(async () => {
    await Promise.all(starts.map((start) => start.stop()));
    await redis?.cleanup();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (extra: Record<string, string> = {}) => {
    const started = spawnStart({ ...env, ...extra });
    starts.push(started);
    return started;
  };

  let winner: StartProcess;

  it('two starts at once, over a stale claim of a crashed start: exactly one runs, the other names it and changes nothing', async () => {
    writeFileSync(platformFile, recordText({ pid: await deadPid(), gatewayUrl: 'http://127.0.0.1:1', state: 'running', env: {} }));
    const pair = [start(), start()];
    const first = await Promise.race(pair.map((s) => s.exited.then(() => s)));
    winner = pair.find((s) => s !== first)!;
    expect(await first.exited).toBe(1);
    expect(first.output()).toContain(`Switchyard is already starting here (pid ${winner.pid}; its gateway will be ${gatewayUrl})`);
    expect(first.output()).not.toMatch(WORK);

    await winner.printed(/Switchyard is running \(pid \d+\)\.\n[\s\S]*Stop: Ctrl\+C/);
    expect(JSON.parse(readFileSync(platformFile, 'utf8'))).toMatchObject({ pid: winner.pid, state: 'running', gatewayUrl, env: { DATABASE_URL: db.url } });
  });

  it('prints the web UI, how to sign in and the dashboard, each at an address that answers', async () => {
    const banner = winner.output().slice(winner.output().indexOf('Switchyard is running'));
    expect(banner).toContain(`Switchyard is running (pid ${winner.pid}).`);
    expect(banner).toContain(`web UI      ${gatewayUrl}/\n`);
    // A fresh database: the start made workspace `default` and a one-time link for its first admin (decision 0042).
    const link = new RegExp(`sign in     (${gatewayUrl}/sign-in#(syl_[A-Za-z0-9_-]{43}))   \\(one-time link for the first admin\\)`).exec(banner);
    expect(link).not.toBeNull();
    expect(banner).toContain('or with an API token: npm run admin -- create-workspace NAME');
    const redeem = () => fetch(`${gatewayUrl}/v1/sign-in-links/redeem`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link![2] }) });
    const signedIn = await redeem();
    expect(signedIn.status).toBe(201);
    expect(signedIn.headers.get('set-cookie')).toMatch(/sy_session=/);
    expect(await signedIn.json()).toMatchObject({ whoami: { role: 'admin', workspace: { slug: 'default' }, userName: 'default admin' } });
    expect((await redeem()).status).toBe(409);
    expect(banner).toContain('npm run admin -- create-token NAME --role admin');
    expect(banner).toContain(`dashboard   ${gatewayUrl}/admin/queues   (BullMQ; password: GATEWAY_ADMIN_TOKEN, any user name)`);
    const page = await fetch(`${gatewayUrl}/`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect((await fetch(`${gatewayUrl}/admin/queues`)).status).toBe(401);
    const basic = `Basic ${Buffer.from(`operator:${ADMIN_TOKEN}`).toString('base64')}`;
    expect((await fetch(`${gatewayUrl}/admin/queues`, { headers: { authorization: basic } })).status).toBe(200);
  });

  it('a second start while it runs: exits non-zero at once naming its pid and URL; it keeps serving and npm run admin still reaches it', async () => {
    const before = readFileSync(platformFile, 'utf8');
    const second = start();
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`Switchyard is already running here (pid ${winner.pid}, gateway ${gatewayUrl}`);
    expect(second.output()).toContain(`kill ${winner.pid}`);
    expect(second.output()).not.toMatch(WORK);
    expect(second.output()).not.toMatch(/EADDRINUSE|\n\s+at /);
    expect(readFileSync(platformFile, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['platform.json']);
    expect((await fetch(`${gatewayUrl}/healthz`)).status).toBe(200);

    // The admin CLI with no DATABASE_URL / REDIS_URL: only the platform file tells it where to go.
    const shell = { SWITCHYARD_PLATFORM_FILE: platformFile };
    const created = await runAdmin(['create-workspace', 'front-door'], shell);
    expect(created).toMatchObject({ code: 0, stderr: expect.stringContaining(`the platform \`npm start\` runs (pid ${winner.pid}, ${gatewayUrl})`) });
    const members = await runAdmin(['list-members', 'front-door'], shell);
    expect(members.code).toBe(0);
    expect(members.stdout).toMatch(/^user id\s+name\s+role/);
    expect(members.stdout).toContain('front-door admin  admin');
    const token = created.stdout.trim().split('\n').at(-1)!;
    expect((await fetch(`${gatewayUrl}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('stops on SIGTERM and removes its own claim', async () => {
    expect(await winner.stop()).toBe(0);
    expect(existsSync(platformFile)).toBe(false);
  });

  it('a port taken by another program: a clear message, no stack, nothing left behind', async () => {
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      const blocked = start({ PORT: String(port) });
      expect(await blocked.exited).toBe(1);
      expect(blocked.output()).toContain('another program already listens on a port Switchyard needs:');
      expect(blocked.output()).toContain(`port ${port} (the gateway, PORT)`);
      expect(blocked.output()).toContain(`PORT=${port + 1} npm start`);
      expect(blocked.output()).not.toMatch(WORK);
      expect(blocked.output()).not.toMatch(/EADDRINUSE|\n\s+at /);
      expect(existsSync(platformFile)).toBe(false);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
