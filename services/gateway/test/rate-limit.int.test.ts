import { TokenRateLimiter } from '../src/http/rate-limit';
import { createTestRedis, type TestRedis } from '@switchyard/testing';

/** The per-token limit holds per replica at once, and across replicas through Redis. */
describe('TokenRateLimiter (real Redis)', () => {
  let t: TestRedis;
  const limiters: TokenRateLimiter[] = [];
  beforeEach(async () => {
    t = await createTestRedis();
  });
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.close()));
    await t.cleanup();
  });
  const limiter = (perSecond: number) => {
    const l = new TokenRateLimiter({ redis: t.redis, prefix: t.prefix, perSecond, syncMs: 60_000 });
    limiters.push(l);
    return l;
  };
  // A fixed instant in the middle of a second, so the window does not roll over during a test.
  const now = Math.floor(Date.now() / 1000) * 1000 + 500;

  it('admits the limit and refuses the rest of the window with the time to wait', () => {
    const l = limiter(3);
    expect([1, 2, 3, 4].map(() => l.take('tok', now))).toEqual([0, 0, 0, 500]);
    expect(l.take('other', now)).toBe(0);
    expect(l.take('tok', now + 1000)).toBe(0);
  });

  it('keeps counting requests whose sync is in flight', async () => {
    const l = limiter(2);
    expect(l.take('tok', now)).toBe(0);
    const syncing = l.sync(); // the INCRBY of the first request is on its way
    expect(l.take('tok', now)).toBe(0);
    expect(l.take('tok', now)).toBeGreaterThan(0);
    await syncing;
    expect(l.take('tok', now)).toBeGreaterThan(0);
  });

  it('counts what other replicas admitted once synced', async () => {
    const a = limiter(10);
    const b = limiter(10);
    for (let i = 0; i < 8; i++) expect(a.take('tok', now)).toBe(0);
    await a.sync();
    expect(await t.redis.get(`${t.prefix}:rl:tok:${now / 1000 - 0.5}`)).toBe('8');
    // b has seen nothing yet; after one request and a sync it learns the shared count.
    expect(b.take('tok', now)).toBe(0);
    await b.sync();
    expect(b.take('tok', now)).toBe(0);
    expect(b.take('tok', now)).toBeGreaterThan(0);
  });
});
