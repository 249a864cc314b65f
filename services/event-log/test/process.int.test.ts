import { createTestRedis, spawnService, type TestRedis } from '@switchyard/testing';

/** The event-log process: refuses a bad configuration by name, and stops cleanly on SIGTERM. */
describe('event-log process', () => {
  let t: TestRedis;
  beforeAll(async () => {
    t = await createTestRedis();
  });
  afterAll(() => t.cleanup());

  it('stops at start-up naming the bad variable', async () => {
    await expect(spawnService('event-log', { REDIS_PREFIX: t.prefix, CLAIM_IDLE_MS: 'soon', EVENT_LOG_HEALTH_PORT: '0' })).rejects.toThrow(
      /exited before it was ready[\s\S]*CLAIM_IDLE_MS/,
    );
  });

  it('exits 0 on SIGTERM', async () => {
    const proc = await spawnService('event-log', { REDIS_URL: t.url, REDIS_PREFIX: t.prefix, EVENT_LOG_HEALTH_PORT: '0' });
    expect(await proc.stop('SIGTERM')).toBe(0);
    expect(proc.output()).toContain('shutting down');
  });
});
