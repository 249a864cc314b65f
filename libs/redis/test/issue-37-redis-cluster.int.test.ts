import { randomUUID } from 'node:crypto';
import { QUEUES, STREAMS, type AcceptedFact, type MailboxEnvelope } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { Worker } from 'bullmq';
import { closeRedis, createActivationQueue, createRedis, duplicateRedis, RedisIdempotencyClaims, RedisIngestWriter, SessionMailbox, toKey, type Redis } from '@switchyard/redis';
import { RedisCluster, waitFor } from '@switchyard/testing';

/**
 * Issue 37 §5 (decision 0061): libs/redis on a Redis Cluster of three masters
 * of the test's own. Under a prefix in braces every Lua script (ingest with its
 * idempotency keys, their release, the session mailboxes) and BullMQ's scripts
 * run; under a prefix without braces the same script touches keys of several
 * slots and is refused (by ioredis before it reaches Redis, else CROSSSLOT),
 * which is why loadConfig refuses that pair.
 */
jest.setTimeout(60_000);

describe('libs/redis on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let redis: Redis;
  const prefix = `{c${randomUUID().slice(0, 8)}}`;
  beforeAll(async () => {
    cluster = await RedisCluster.start({ busyKey: prefix });
    redis = createRedis(cluster.url, { connectionName: 'cluster-test' });
  });
  afterAll(async () => {
    if (redis) await closeRedis(redis);
    await cluster?.stop();
  });

  const fact = (key: string): AcceptedFact => ({
    id: newId(),
    workspaceId: randomUUID(),
    workspace: 'acme',
    kind: 'test.cluster',
    subject: { type: 't', id: key },
    payload: {},
    idempotencyKey: key,
    ts: new Date().toISOString(),
  });

  it('accepts keyed facts and releases their keys under a hash-tagged prefix; refuses a plain prefix (keys of several slots)', async () => {
    const writer = new RedisIngestWriter(redis, prefix, toKey(prefix, STREAMS.ingest), 60);
    const facts = [fact('k1'), fact('k2')];
    const results = await writer.accept(facts.map((f) => ({ fact: f, correlationId: f.id })));
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted']);
    expect(await redis.xlen(toKey(prefix, STREAMS.ingest))).toBe(2);
    expect(await new RedisIdempotencyClaims(redis, prefix).release(facts)).toBe(2);

    const plain = prefix.slice(1, -1);
    const refused = new RedisIngestWriter(redis, plain, toKey(plain, STREAMS.ingest), 60);
    await expect(refused.accept([{ fact: fact('k3'), correlationId: 'c' }])).rejects.toThrow(/CROSSSLOT|should belong to the same slot/);
  });

  it('runs the session mailbox scripts: post, read, resident wake, close when drained', async () => {
    const box = new SessionMailbox(redis, prefix, { closedTtlSeconds: 60 });
    const sessionId = randomUUID();
    const envelope = (content: string): MailboxEnvelope => ({ schemaVersion: 1, id: randomUUID(), sessionId, from: { type: 'user', userId: randomUUID() }, content, sentAt: new Date().toISOString() });
    expect(await box.post(envelope('a'))).toBe('delivered');
    const read = await box.read(sessionId, undefined);
    expect(read.envelopes.map((e) => e.content)).toEqual(['a']);
    expect(await box.closeIfDrained(sessionId, read.cursor, read.ids)).toBeNull();
    const resident = randomUUID();
    await box.makeResident(resident);
    expect(await box.postResident({ ...envelope('wake'), sessionId: resident })).toBe('woke');
  });

  it('adds a BullMQ job and a worker on a duplicated cluster connection processes it', async () => {
    const queue = createActivationQueue(redis, prefix);
    const workerConnection = duplicateRedis(redis, { maxRetriesPerRequest: null, connectionName: 'cluster-test:worker' });
    const done: string[] = [];
    const worker = new Worker(QUEUES.activations, async (job) => void done.push(job.id!), { connection: workerConnection, prefix });
    try {
      await queue.add('wake', { schemaVersion: 1, runId: randomUUID(), workspaceId: randomUUID(), agentId: randomUUID() }, { jobId: 'job-1' });
      await waitFor(async () => done.includes('job-1'), { timeoutMs: 20_000, what: 'the job processed' });
    } finally {
      await worker.close();
      await queue.close();
      await closeRedis(workerConnection);
    }
  });
});
