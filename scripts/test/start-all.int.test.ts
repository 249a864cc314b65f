import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createTestDatabase, createTestRedis, nodeArgsFor, spawnScript, type TestDatabase, type TestRedis } from '@switchyard/testing';

/**
 * The one-process platform (`scripts/start-all.ts`, what `npm start` runs) in
 * a real process: a SIGTERM that arrives while its services are still
 * starting starts no more of them, closes those that started, and exits 0 —
 * the signal's default action would kill it with nothing closed. A port another program took
 * stops it with one line naming the port, not a stack (issue 36).
 */
describe('start-all', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await redis?.cleanup();
    await db?.drop();
  });

  it('a SIGTERM during start-up stops starting services, closes the started ones and exits 0', async () => {
    const ports = Object.fromEntries(['GATEWAY', 'EVENT_LOG', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER'].map((name) => [`${name}_HEALTH_PORT`, '0']));
    const env = { ...ports, DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, PORT: '0' };
    // The first service up: the others are still to start.
    const platform = await spawnScript('scripts/start-all.ts', env, { readyPattern: /"msg":"event-log started"/ });
    expect(await platform.stop('SIGTERM')).toBe(0);
    const output = platform.output();
    expect(output).toContain('"msg":"shutting down"');
    expect(output).not.toContain('"msg":"all services started"');
    expect(output).not.toContain('"msg":"gateway listening"');
  });

  it('a port another program holds: exits 1 with a line naming it, no stack', async () => {
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      const ports = Object.fromEntries(['GATEWAY', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER'].map((name) => [`${name}_HEALTH_PORT`, '0']));
      // The event-log starts first: its health port is the one taken.
      const env = { ...ports, EVENT_LOG_HEALTH_PORT: String(port), DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, PORT: '0' };
      // Run to its end ('close': the output is all read), not until a line as spawnScript does.
      const child = spawn(process.execPath, nodeArgsFor('scripts/start-all.ts'), { cwd: path.resolve(__dirname, '../..'), env: { ...process.env, ...env } });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
      expect(output).toContain(`event-log: 127.0.0.1:${port} is already in use by another program: stop it, or choose another port`);
      expect(output).not.toMatch(/\n\s+at |"stack"/);
      expect(output).not.toContain('"msg":"all services started"');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
