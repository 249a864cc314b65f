import { z } from 'zod';
import { createLogger } from '@switchyard/logging';
import {
  appendMessages,
  deadLetterKeys,
  listDeadLetters,
  replayDeadLetter,
  StreamConsumer,
  toKey,
  type StreamEntry,
} from '@switchyard/redis';
import { createTestRedis, waitFor, type TestRedis } from '@switchyard/testing';

const MessageSchema = z.strictObject({ n: z.number().int() });
type Message = z.infer<typeof MessageSchema>;
const log = createLogger({ service: 'test', level: 'silent' });

describe('StreamConsumer (real Redis)', () => {
  let t: TestRedis;
  let stream: string;
  const consumers: StreamConsumer<Message>[] = [];

  beforeEach(async () => {
    t = await createTestRedis();
    stream = toKey(t.prefix, 'work');
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.close()));
    await t.cleanup();
  });

  function consumer(name: string, handle: (entries: StreamEntry<Message>[]) => Promise<void>, extra: Partial<ConstructorParameters<typeof StreamConsumer<Message>>[0]> = {}) {
    const c = new StreamConsumer<Message>({
      redis: t.redis,
      stream,
      group: 'g',
      consumer: name,
      deadLetters: deadLetterKeys(t.prefix, 'work', 'g'),
      decode: (raw) => MessageSchema.parse(raw),
      handle,
      log,
      blockMs: 100,
      claimIdleMs: 300,
      maxDeliveries: 3,
      ...extra,
    });
    consumers.push(c);
    return c;
  }

  it('delivers every entry in order and acks it', async () => {
    const seen: number[] = [];
    await consumer('a', async (entries) => void seen.push(...entries.map((e) => e.message.n))).start();
    await appendMessages(t.redis, stream, Array.from({ length: 250 }, (_, n) => ({ n })));
    await waitFor(async () => seen.length === 250, { what: '250 entries' });
    expect(seen).toEqual(Array.from({ length: 250 }, (_, n) => n));
    await waitFor(async () => ((await t.redis.xpending(stream, 'g')) as [number])[0] === 0, { what: 'no pending' });
  });

  it('dead-letters a poison entry after maxDeliveries with its error and processes the ones after it', async () => {
    const seen = new Set<number>();
    await consumer('a', async (entries) => {
      for (const entry of entries) if (entry.message.n === 3) throw new Error('boom on 3');
      entries.forEach((e) => seen.add(e.message.n));
    }).start();
    await appendMessages(t.redis, stream, Array.from({ length: 10 }, (_, n) => ({ n })));
    await waitFor(async () => seen.size === 9, { what: 'the 9 good entries' });
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
    const keys = deadLetterKeys(t.prefix, 'work', 'g');
    const letters = await waitFor(async () => {
      const list = await listDeadLetters(t.redis, keys);
      return list.length === 1 ? list : undefined;
    }, { what: 'a dead letter' });
    expect(letters[0]).toMatchObject({ deliveries: 3, group: 'g', stream });
    expect(letters[0]!.error).toContain('boom on 3');
    expect(JSON.parse(letters[0]!.message!)).toEqual({ n: 3 });
    expect(((await t.redis.xpending(stream, 'g')) as [number])[0]).toBe(0);
  });

  it('dead-letters an undecodable entry at once, without calling the handler for it', async () => {
    const seen: number[] = [];
    await consumer('a', async (entries) => void seen.push(...entries.map((e) => e.message.n))).start();
    await t.redis.xadd(stream, '*', 'm', '{not json');
    await t.redis.xadd(stream, '*', 'm', JSON.stringify({ n: 'wrong type' }));
    await appendMessages(t.redis, stream, [{ n: 1 }]);
    await waitFor(async () => seen.length === 1);
    const letters = await waitFor(async () => {
      const list = await listDeadLetters(t.redis, deadLetterKeys(t.prefix, 'work', 'g'));
      return list.length === 2 ? list : undefined;
    });
    expect(letters.map((l) => l.deliveries)).toEqual([1, 1]);
    expect(letters[0]!.error).toMatch(/JSON/);
  });

  it('replays a dead letter onto its stream', async () => {
    let fail = true;
    const seen: number[] = [];
    await consumer('a', async (entries) => {
      if (fail) throw new Error('not yet');
      seen.push(...entries.map((e) => e.message.n));
    }).start();
    await appendMessages(t.redis, stream, [{ n: 42 }]);
    const keys = deadLetterKeys(t.prefix, 'work', 'g');
    const [letter] = await waitFor(async () => {
      const list = await listDeadLetters(t.redis, keys);
      return list.length === 1 ? list : undefined;
    });
    fail = false;
    expect(await replayDeadLetter(t.redis, keys, letter!.deadLetterId)).toMatch(/^\d+-\d+$/);
    await waitFor(async () => seen.length === 1);
    expect(seen).toEqual([42]);
    expect(await listDeadLetters(t.redis, keys)).toEqual([]);
    expect(await replayDeadLetter(t.redis, keys, letter!.deadLetterId)).toBeNull();
  });

  it('takes over entries a dead consumer left pending', async () => {
    // A consumer that reads and never acks, then disappears (like a SIGKILLed process).
    await t.redis.xgroup('CREATE', stream, 'g', '0', 'MKSTREAM');
    await appendMessages(t.redis, stream, [{ n: 1 }, { n: 2 }]);
    await t.redis.xreadgroup('GROUP', 'g', 'dead', 'COUNT', 10, 'STREAMS', stream, '>');
    const seen: number[] = [];
    await consumer('b', async (entries) => void seen.push(...entries.map((e) => e.message.n))).start();
    await waitFor(async () => seen.length === 2, { what: 'reclaimed entries' });
    expect(seen.sort()).toEqual([1, 2]);
  });

  it('close() lets the batch in hand finish and ack', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started = new Promise<void>((resolve) => {
      void consumer('a', async () => {
        resolve();
        await gate;
      }).start();
    });
    await appendMessages(t.redis, stream, [{ n: 1 }]);
    await started;
    const closing = consumers[0]!.close();
    release();
    await closing;
    expect(((await t.redis.xpending(stream, 'g')) as [number])[0]).toBe(0);
  });

  it('lingerMs: entries that arrive while it lingers after a small batch come as one batch', async () => {
    const batches: number[][] = [];
    await consumer('a', async (entries) => void batches.push(entries.map((e) => e.message.n)), { lingerMs: 400, claimIdleMs: 5000 }).start();
    await appendMessages(t.redis, stream, [{ n: 0 }]);
    await waitFor(async () => batches.length === 1, { what: 'the first batch' });
    // Five separate appends, 20 ms apart, all within the linger: one batch.
    for (let n = 1; n <= 5; n++) {
      await appendMessages(t.redis, stream, [{ n }]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor(async () => batches.flat().length === 6, { what: 'all six entries' });
    expect(batches).toEqual([[0], [1, 2, 3, 4, 5]]);
  });

  it('refuses a lingerMs that would make a lingering batch look abandoned', () => {
    expect(() => consumer('a', async () => undefined, { lingerMs: 150 })).toThrow(/lingerMs/);
  });

  it('without lingerMs each entry that finds the consumer waiting is a batch of its own', async () => {
    const batches: number[][] = [];
    await consumer('a', async (entries) => void batches.push(entries.map((e) => e.message.n))).start();
    for (let n = 0; n < 3; n++) {
      await appendMessages(t.redis, stream, [{ n }]);
      await waitFor(async () => batches.flat().length === n + 1, { what: `entry ${n}` });
    }
    expect(batches).toEqual([[0], [1], [2]]);
  });

  it('lingerMs: a full batch is followed by the next read at once', async () => {
    const batches: number[][] = [];
    const started = Date.now();
    await consumer('a', async (entries) => void batches.push(entries.map((e) => e.message.n)), { batchSize: 3, lingerMs: 1000, claimIdleMs: 5000 }).start();
    await appendMessages(t.redis, stream, Array.from({ length: 7 }, (_, n) => ({ n })));
    await waitFor(async () => batches.flat().length === 7, { what: 'seven entries' });
    expect(batches).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    // Two full batches then the last: no linger in between (it would take a second each).
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
