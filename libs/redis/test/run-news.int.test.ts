import { randomUUID } from 'node:crypto';
import { duplicateRedis, RunNewsPublisher, RunNewsSubscriber, type Redis } from '@switchyard/redis';
import { createTestRedis, waitFor, type TestRedis } from '@switchyard/testing';

/**
 * The runner's announcements of a run's news (decision 0056): a follower
 * subscribed hears each publish of its run, not another run's, and nothing
 * after it unsubscribed; two followers of one run share the channel.
 */
describe('RunNewsPublisher → RunNewsSubscriber (real Redis)', () => {
  let t: TestRedis;
  let subscriberConnection: Redis;
  let publisher: RunNewsPublisher;
  let subscriber: RunNewsSubscriber;
  const errors: unknown[] = [];

  beforeEach(async () => {
    t = await createTestRedis();
    subscriberConnection = duplicateRedis(t.redis, { connectionName: 'test:run-news' });
    publisher = new RunNewsPublisher(t.redis, t.prefix, (error) => errors.push(error));
    subscriber = new RunNewsSubscriber(subscriberConnection, t.prefix);
  });
  afterEach(async () => {
    subscriberConnection.disconnect();
    await t.cleanup();
  });

  it('delivers a run’s news to each of its followers, not to another run’s, and none after unsubscribing', async () => {
    const runId = randomUUID();
    const otherRun = randomUUID();
    const heard = { first: 0, second: 0, other: 0 };
    const stopFirst = await subscriber.subscribe(runId, () => heard.first++);
    const stopSecond = await subscriber.subscribe(runId, () => heard.second++);
    const stopOther = await subscriber.subscribe(otherRun, () => heard.other++);
    publisher.publish(runId);
    await waitFor(async () => heard.first === 1 && heard.second === 1, { timeoutMs: 10_000 });
    stopFirst();
    publisher.publish(runId);
    await waitFor(async () => heard.second === 2, { timeoutMs: 10_000 });
    // The other run's announcement comes after both of this run's: it not arriving twice is seen once it arrived.
    publisher.publish(otherRun);
    await waitFor(async () => heard.other === 1, { timeoutMs: 10_000 });
    expect(heard).toEqual({ first: 1, second: 2, other: 1 });
    stopSecond();
    stopOther();
    expect(errors).toEqual([]);
  });
});
