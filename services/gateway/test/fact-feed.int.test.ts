import type { Fact, FactPublishedMessage } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createLogger } from '@switchyard/logging';
import type { Redis as SingleRedis } from 'ioredis';
import { appendMessages, type Redis } from '@switchyard/redis';
import { createTestRedis, waitFor, type TestRedis } from '@switchyard/testing';
import { FactFeed } from '../src/sse/fact-feed';

/**
 * The gateway's live feed on a real Redis stream: it reads nothing while no
 * session listens, and a first subscriber gets every fact published from the
 * feed's last look at the stream on — including those published while it
 * was idle — with no new fact needed to move it.
 */
describe('FactFeed', () => {
  let redis: TestRedis;
  let feed: FactFeed;
  const workspaceId = newId();
  let seq = 0;

  beforeEach(async () => {
    redis = await createTestRedis();
  });
  afterEach(async () => {
    await feed?.close();
    await redis?.cleanup();
  });

  const key = () => `${redis.prefix}:facts`;
  /** Idle looks at the stream the feed made (its XREVRANGE calls): the signal that it went past a point while idle. */
  let looks = 0;
  const countingLooks = (client: Redis): Redis => {
    // A test Redis is one server: its duplicate takes the options alone.
    const single = client as SingleRedis;
    const counted = Object.create(single) as SingleRedis;
    counted.duplicate = ((...args: Parameters<SingleRedis['duplicate']>) => {
      const blocking = single.duplicate(...args);
      const xrevrange = blocking.xrevrange.bind(blocking) as (...a: unknown[]) => unknown;
      (blocking as unknown as { xrevrange: (...a: unknown[]) => unknown }).xrevrange = (...a: unknown[]) => ((looks += 1), xrevrange(...a));
      return blocking;
    }) as SingleRedis['duplicate'];
    return counted;
  };
  const publish = async (kind: string) => {
    const fact: Fact = { id: newId(), seq: ++seq, workspace: 'feed', kind, subject: { type: 't', id: String(seq) }, payload: {}, ts: new Date().toISOString() };
    const message: FactPublishedMessage = { id: fact.id, type: 'fact_published', occurredAt: fact.ts, correlationId: fact.id, schemaVersion: 1, workspaceId, fact };
    await appendMessages(redis.redis, key(), [message], { maxLen: 10_000 });
    return fact;
  };

  it('while idle, then for a first subscriber, delivers each fact from its last look at the stream on, once and in order', async () => {
    await publish('before.start');
    feed = new FactFeed(countingLooks(redis.redis), key(), createLogger({ service: 'test', level: 'silent' }));
    feed.start();
    // Idle for over one look at the stream: facts published now are read once someone listens.
    await publish('while.idle.1');
    const before = looks;
    // The look after this one began after the publish, and the one after that shows it ended.
    await waitFor(async () => looks >= before + 2, { timeoutMs: 10_000, intervalMs: 10, what: 'a whole idle look at the stream after the publish' });
    const idleFact = await publish('while.idle.2');
    const got: string[] = [];
    feed.subscribe(workspaceId, (fact) => got.push(fact.kind));
    await waitFor(async () => got.includes(idleFact.kind), { timeoutMs: 5000, intervalMs: 10, what: 'the fact published while idle' });
    const live = await publish('live');
    await waitFor(async () => got.includes(live.kind), { timeoutMs: 5000, intervalMs: 10, what: 'a live fact' });
    // Each fact once, in order; nothing from before the feed started.
    expect(got.filter((kind) => kind === idleFact.kind)).toHaveLength(1);
    expect(got.indexOf(idleFact.kind)).toBeLessThan(got.indexOf(live.kind));
    expect(got).not.toContain('before.start');
  });

  it('a listener of another workspace gets nothing', async () => {
    feed = new FactFeed(redis.redis, key(), createLogger({ service: 'test', level: 'silent' }));
    feed.start();
    const other: string[] = [];
    const mine: string[] = [];
    feed.subscribe(newId(), (fact) => other.push(fact.kind));
    feed.subscribe(workspaceId, (fact) => mine.push(fact.kind));
    // Published at once: the subscriptions raced the feed's first look at the stream.
    const fact = await publish('scoped');
    await waitFor(async () => mine.includes(fact.kind), { timeoutMs: 5000, intervalMs: 10, what: 'the fact' });
    expect(other).toEqual([]);
  });
});
