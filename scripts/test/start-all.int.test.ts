import { spawn } from 'node:child_process';
import path from 'node:path';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@switchyard/testing';

/**
 * The one-process platform (`scripts/start-all.ts`, what `npm start` runs) in
 * a real process: a SIGTERM that arrives while its services are still
 * starting starts no more of them, closes those that started, and exits 0 —
 * the signal's default action would kill it with nothing closed.
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
    const ports = Object.fromEntries(['EVENT_LOG', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER'].map((name) => [`${name}_HEALTH_PORT`, '0']));
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-all.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, ...ports, DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    // The first service up: the others are still to start.
    for (let i = 0; i < 600 && !output.includes('"msg":"event-log started"'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(output).toContain('"msg":"event-log started"');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"shutting down"');
    expect(output).not.toContain('"msg":"all services started"');
    expect(output).not.toContain('"msg":"gateway listening"');
  });
});
