import { appendMessages, MESSAGE_FIELD, toKey } from '@switchyard/redis';
import { createTestRedis, waitFor, type TestRedis } from '@switchyard/testing';

describe('appendMessages (real Redis)', () => {
  let t: TestRedis;
  let stream: string;

  beforeEach(async () => {
    t = await createTestRedis();
    stream = toKey(t.prefix, 'produced');
  });
  afterEach(async () => t.cleanup());

  it('returns the entry ids in order, one message each as JSON in the field m', async () => {
    const ids = await appendMessages(t.redis, stream, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const entries = await t.redis.xrange(stream, '-', '+');
    expect(entries.map(([id]) => id)).toEqual(ids);
    expect(entries.map(([, fields]) => [fields[0], JSON.parse(fields[1]!)])).toEqual([1, 2, 3].map((n) => [MESSAGE_FIELD, { n }]));
  });

  it('wakes a blocked group reader once with the whole batch, not with its first entry', async () => {
    await t.redis.xgroup('CREATE', stream, 'g', '$', 'MKSTREAM');
    const reader = t.redis.duplicate();
    try {
      const readerId = String(await reader.client('ID'));
      const read = reader.xreadgroup('GROUP', 'g', 'c', 'COUNT', 100, 'BLOCK', 5000, 'STREAMS', stream, '>') as Promise<Array<[string, unknown[]]> | null>;
      // The read must be blocked on the server before the batch is appended.
      const blocked = async () => / flags=b /.test(String(await t.redis.client('LIST', 'ID', readerId)));
      await waitFor(blocked, { timeoutMs: 5000, intervalMs: 5, what: 'the reader blocked on the server' });
      await appendMessages(t.redis, stream, Array.from({ length: 10 }, (_, n) => ({ n })));
      const reply = await read;
      expect(reply?.[0]?.[1]).toHaveLength(10);
    } finally {
      reader.disconnect();
    }
  });

  it('rejects when an XADD fails and appends nothing', async () => {
    await t.redis.set(stream, 'not a stream');
    await expect(appendMessages(t.redis, stream, [{ n: 1 }])).rejects.toThrow(/WRONGTYPE/);
    expect(await t.redis.get(stream)).toBe('not a stream');
  });

  it('appends nothing for no messages', async () => {
    expect(await appendMessages(t.redis, stream, [])).toEqual([]);
    expect(await t.redis.exists(stream)).toBe(0);
  });
});
