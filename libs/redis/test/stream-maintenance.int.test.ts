import { streamGroupStats, toKey, trimAcknowledged } from '@switchyard/redis';
import { createTestRedis, type TestRedis } from '@switchyard/testing';

/** `ingest` may only lose entries every group has acknowledged. */
describe('trimAcknowledged (real Redis)', () => {
  let t: TestRedis;
  let stream: string;
  beforeEach(async () => {
    t = await createTestRedis();
    stream = toKey(t.prefix, 'ingest');
  });
  afterEach(() => t.cleanup());

  const ids = async () => (await t.redis.xrange(stream, '-', '+')).map(([id]) => id);

  it('keeps pending and undelivered entries of every group and removes what all acknowledged', async () => {
    const added: string[] = [];
    for (let i = 0; i < 10; i++) added.push((await t.redis.xadd(stream, '*', 'm', String(i)))!);
    await t.redis.xgroup('CREATE', stream, 'fast', '0');
    await t.redis.xgroup('CREATE', stream, 'slow', '0');
    // fast: read all 10, acked the first 8 (2 pending). slow: read 5, acked 3 (2 pending), 5 undelivered.
    await t.redis.xreadgroup('GROUP', 'fast', 'c', 'COUNT', 10, 'STREAMS', stream, '>');
    await t.redis.xack(stream, 'fast', ...added.slice(0, 8));
    await t.redis.xreadgroup('GROUP', 'slow', 'c', 'COUNT', 5, 'STREAMS', stream, '>');
    await t.redis.xack(stream, 'slow', ...added.slice(0, 3));

    expect(await trimAcknowledged(t.redis, stream)).toBe(3);
    expect(await ids()).toEqual(added.slice(3));

    await t.redis.xack(stream, 'slow', ...added.slice(3, 5));
    // slow has nothing pending but 5 undelivered entries; fast still holds 8 and 9.
    expect(await trimAcknowledged(t.redis, stream)).toBe(2);
    expect(await ids()).toEqual(added.slice(5));
    const stats = await streamGroupStats(t.redis, stream);
    expect(stats.find((s) => s.group === 'slow')).toMatchObject({ pending: 0, lag: 5 });
  });

  it('never trims a stream that has no group', async () => {
    await t.redis.xadd(stream, '*', 'm', '1');
    expect(await trimAcknowledged(t.redis, stream)).toBe(0);
    expect(await ids()).toHaveLength(1);
    expect(await trimAcknowledged(t.redis, toKey(t.prefix, 'absent'))).toBe(0);
  });
});
