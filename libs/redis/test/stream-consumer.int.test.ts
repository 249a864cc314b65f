import { z } from 'zod';
import type { NewDeadLetter } from '@switchyard/contracts';
import { SqlDeadLetterStore } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import {
  appendMessages,
  lastErrorsKey,
  replayDeadLetter,
  StreamConsumer,
  toKey,
  type DeadLetterStore,
  type StreamConsumerOptions,
} from '@switchyard/redis';
import { createTestRedis, createTestSql, waitFor, type TestRedis, type TestSql } from '@switchyard/testing';

const MessageSchema = z.strictObject({ n: z.number().int() });
type Message = z.infer<typeof MessageSchema>;
const log = createLogger({ service: 'test', level: 'silent' });

/**
 * The one stream consumer on a real Redis, with its dead letters in a real
 * PostgreSQL (the store the services use).
 */
describe('StreamConsumer (real Redis and PostgreSQL)', () => {
  let t: TestRedis;
  let pg: TestSql;
  let store: SqlDeadLetterStore;
  let stream: string;
  const consumers: StreamConsumer<Message>[] = [];

  beforeAll(async () => {
    pg = await createTestSql();
    store = new SqlDeadLetterStore(pg.sql);
  });
  afterAll(() => pg.close());
  beforeEach(async () => {
    t = await createTestRedis();
    stream = toKey(t.prefix, 'work');
    await pg.pg.query('DELETE FROM dead_letters');
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.close()));
    await t.cleanup();
  });
  const pending = async () => ((await t.redis.xpending(stream, 'g')) as [number])[0];
  const letters = (count: number) =>
    waitFor(async () => {
      const list = await store.list({ stream });
      return list.length === count ? list : undefined;
    }, { what: `${count} dead letter(s)` });

  function consumer(name: string, handle: StreamConsumerOptions<Message>['handle'], extra: Partial<ConstructorParameters<typeof StreamConsumer<Message>>[0]> = {}) {
    const c = new StreamConsumer<Message>({
      redis: t.redis,
      stream,
      group: 'g',
      consumer: name,
      deadLetters: store,
      lastErrorsKey: lastErrorsKey(t.prefix, 'work', 'g'),
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
    const [letter] = await letters(1);
    expect(letter).toMatchObject({ deliveries: 3, group: 'g', stream, consumer: 'a', replayedAt: null });
    expect(letter!.error).toContain('boom on 3');
    expect(JSON.parse(letter!.message)).toEqual({ n: 3 });
    await waitFor(async () => (await pending()) === 0, { what: 'the letter acked' });
  });

  it('dead-letters an undecodable entry at once, without calling the handler for it', async () => {
    const seen: number[] = [];
    await consumer('a', async (entries) => void seen.push(...entries.map((e) => e.message.n))).start();
    await t.redis.xadd(stream, '*', 'm', '{not json');
    await t.redis.xadd(stream, '*', 'm', JSON.stringify({ n: 'wrong type' }));
    await appendMessages(t.redis, stream, [{ n: 1 }]);
    await waitFor(async () => seen.length === 1);
    const list = await letters(2);
    expect(list.map((l) => l.deliveries)).toEqual([1, 1]);
    expect(list[0]!.error).toMatch(/JSON/);
    expect(list[0]!.message).toBe('{not json');
  });

  it('replays a dead letter onto its stream and keeps it, marked replayed', async () => {
    let fail = true;
    const seen: number[] = [];
    await consumer('a', async (entries) => {
      if (fail) throw new Error('not yet');
      seen.push(...entries.map((e) => e.message.n));
    }).start();
    await appendMessages(t.redis, stream, [{ n: 42 }]);
    const [letter] = await letters(1);
    fail = false;
    const replayed = await replayDeadLetter(t.redis, store, letter!.id);
    expect(replayed).toMatchObject({ ok: true, entryId: expect.stringMatching(/^\d+-\d+$/) });
    await waitFor(async () => seen.length === 1);
    expect(seen).toEqual([42]);
    expect(await store.list({ stream })).toEqual([]);
    const [kept] = await store.list({ stream, includeReplayed: true });
    expect(kept).toMatchObject({ id: letter!.id, replayedAs: (replayed as { entryId: string }).entryId });
    expect(kept!.replayedAt).not.toBeNull();
    expect(await replayDeadLetter(t.redis, store, letter!.id)).toEqual({ ok: false, reason: 'already_replayed' });
    expect(await replayDeadLetter(t.redis, store, '999999')).toEqual({ ok: false, reason: 'not_found' });
  });

  it('issue 13: entries a handler refuses are dead-lettered at once, the rest of the batch acked', async () => {
    const handled: number[][] = [];
    const reacted: number[] = [];
    await consumer('a', async (entries) => {
      handled.push(entries.map((e) => e.message.n));
      return { refused: entries.filter((e) => e.message.n % 2 === 1).map((e) => ({ id: e.id, error: `odd ${e.message.n}` })) };
    }, { onDeadLettered: async (entry) => void reacted.push(entry.message.n) }).start();
    await appendMessages(t.redis, stream, Array.from({ length: 4 }, (_, n) => ({ n })));
    const list = await letters(2);
    expect(list.map((l) => [JSON.parse(l.message).n, l.error, l.deliveries])).toEqual([[1, 'odd 1', 1], [3, 'odd 3', 1]]);
    expect(reacted).toEqual([1, 3]);
    await waitFor(async () => (await pending()) === 0, { what: 'every entry acked' });
    // One delivery each: nothing was retried.
    expect(handled.flat().sort()).toEqual([0, 1, 2, 3]);
  });

  it('issue 13: records the letter before the ack; while the store refuses, the entry stays pending, then is recorded once', async () => {
    let storeDown = true;
    const recorded: NewDeadLetter[] = [];
    const flaky: DeadLetterStore = {
      record: async (letter) => {
        if (storeDown) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        recorded.push(letter);
        await store.record(letter);
      },
    };
    await consumer('a', async () => undefined, { deadLetters: flaky }).start();
    await t.redis.xadd(stream, '*', 'm', '{not json');
    await waitFor(async () => (await pending()) === 1, { what: 'the entry delivered' });
    // Past a reclaim (claimIdleMs 300): still pending, not acked without its letter.
    const deliveries = async () => ((await t.redis.xpending(stream, 'g', '-', '+', 10)) as [string, string, number, number][])[0]?.[3] ?? 0;
    await waitFor(async () => (await deliveries()) >= 2, { what: 'a second delivery' });
    expect(await pending()).toBe(1);
    expect(await store.list({ stream })).toEqual([]);
    storeDown = false;
    await waitFor(async () => (await pending()) === 0, { what: 'the ack once the letter is recorded' });
    expect(await store.list({ stream })).toHaveLength(1);
    // Recording the same entry again (a crash before the ack) leaves one letter.
    await store.record(recorded[0]!);
    expect(await store.list({ stream })).toHaveLength(1);
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
    // Handled [0]: it lingers now (its ack waits for the next read). Five separate appends meanwhile: one batch.
    for (let n = 1; n <= 5; n++) await appendMessages(t.redis, stream, [{ n }]);
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
