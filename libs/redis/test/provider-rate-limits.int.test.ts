import { ProviderRateLimits, toKey } from '@switchyard/redis';
import { createTestRedis, type TestRedis } from '@switchyard/testing';

/**
 * The shared rate-limit bucket's Lua script (decision 0060) against real Redis: reservations are
 * spaced one interval apart whoever takes them, tokens push the next slot by their worth, a pause
 * holds every reservation, and a settle corrects the tokens.
 */
describe('ProviderRateLimits (real Redis)', () => {
  let t: TestRedis;
  let limits: ProviderRateLimits;
  const bucket = 'b0123456789abcdef';
  const one = { msPerRequest: 1000, msPerToken: 0, tokens: 0 };

  beforeEach(async () => {
    t = await createTestRedis();
    limits = new ProviderRateLimits(t.redis, t.prefix);
  });
  afterEach(async () => t.cleanup());

  it('spaces concurrent reservations one request interval apart, from two clients, without a gap or a double slot', async () => {
    const connection = t.redis.duplicate();
    const other = new ProviderRateLimits(connection, t.prefix);
    const waits = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : limits).reserve(bucket, one))).finally(() => connection.disconnect());
    const sorted = [...waits].sort((a, b) => a - b);
    expect(sorted[0]).toBe(0);
    // Each slot is 1000 ms after the one before (the calls took a few ms of Redis time, rounded up).
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(990);
    expect(sorted.at(-1)!).toBeGreaterThanOrEqual(19 * 1000 - 50);
    expect(sorted.at(-1)!).toBeLessThanOrEqual(19 * 1000 + 10);
  });

  it('moves the next slot by the tokens a reservation spends, and settle corrects them', async () => {
    const tokens = { msPerRequest: 0, msPerToken: 10, tokens: 100 };
    expect(await limits.reserve(bucket, tokens)).toBe(0);
    const second = await limits.reserve(bucket, tokens);
    expect(second).toBeGreaterThanOrEqual(990);
    expect(second).toBeLessThanOrEqual(1000);
    // The second call used 50 tokens fewer than reserved: the third slot comes 500 ms sooner than 2000.
    await limits.settle(bucket, -50 * 10);
    const third = await limits.reserve(bucket, tokens);
    expect(third).toBeGreaterThanOrEqual(1490);
    expect(third).toBeLessThanOrEqual(1500);
  });

  it('a pause holds every later reservation until it ends, and says how long it lasts', async () => {
    expect(await limits.paused(bucket)).toBe(0);
    expect(await limits.pause(bucket, 5000)).toBeGreaterThanOrEqual(4990);
    // A shorter pause does not shorten it.
    expect(await limits.pause(bucket, 100)).toBeGreaterThan(4900);
    expect(await limits.paused(bucket)).toBeGreaterThan(4900);
    const wait = await limits.reserve(bucket, one);
    expect(wait).toBeGreaterThan(4900);
    expect(wait).toBeLessThanOrEqual(5000);
    // The slot after the pause's is one interval later.
    expect(await limits.reserve(bucket, one)).toBeGreaterThan(5900);
  });

  it('keeps an idle bucket for a bounded time, under the installation prefix', async () => {
    await limits.reserve(bucket, one);
    const key = toKey(t.prefix, 'ratelimit', bucket);
    const ttl = await t.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000 + 120_000);
    expect(await t.redis.hgetall(key)).toEqual({ r: expect.any(String), t: expect.any(String), p: expect.any(String) });
  });
});
