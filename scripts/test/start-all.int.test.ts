import { createTestDatabase, createTestRedis, spawnScript, type TestDatabase, type TestRedis } from '@switchyard/testing';

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
});
