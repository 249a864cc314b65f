import { Job, UnrecoverableError, Worker } from 'bullmq';
import { QUEUES } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { closeRedis, createActivationQueue, createRedis, enqueueActivations, type ActivationQueue } from '@switchyard/redis';
import { createTestRedis, waitFor, type TestRedis } from '@switchyard/testing';
import { BullmqJobWaker } from '../src/adapters/bullmq-activation-worker';

/**
 * The job waker on a real Redis and BullMQ queue: waking promotes the runs'
 * delayed jobs and leaves waiting ones and unknown ids alone; withdrawing
 * removes a waiting job; reviving gives a run whose job finished a new one.
 */
describe('BullmqJobWaker', () => {
  let t: TestRedis;
  let queue: ActivationQueue;
  let waker: BullmqJobWaker;
  beforeAll(async () => {
    t = await createTestRedis();
    queue = createActivationQueue(t.redis, t.prefix);
    waker = new BullmqJobWaker(queue, t.redis);
  });
  afterAll(async () => {
    await queue?.close();
    await t?.cleanup();
  });
  const job = () => ({ schemaVersion: 1 as const, runId: newId(), workspaceId: newId(), agentId: newId() });
  const state = async (runId: string) => (await Job.fromId(queue, runId))?.getState() ?? 'gone';

  it('promotes the delayed jobs among the runs, and leaves waiting jobs and unknown ids alone', async () => {
    const [delayed, waiting] = [job(), job()];
    await queue.add('run', delayed, { jobId: delayed.runId, delay: 60_000 });
    await enqueueActivations(queue, [waiting]);
    expect(await state(delayed.runId)).toBe('delayed');
    await waker.wake([waiting.runId, newId(), delayed.runId]);
    expect(await state(delayed.runId)).toBe('waiting');
    expect(await state(waiting.runId)).toBe('waiting');
    await waker.wake([]);
  });

  it('withdraws a waiting job', async () => {
    const waiting = job();
    await enqueueActivations(queue, [waiting]);
    await waker.withdraw(waiting.runId);
    expect(await state(waiting.runId)).toBe('gone');
  });

  it('revives a run whose job finished or is gone, and leaves a run with a live job alone', async () => {
    const [finished, gone, live] = [job(), job(), job()];
    // BullMQ fails the first job for good (as after too many stalls); then the live one is added.
    await enqueueActivations(queue, [finished]);
    const connection = createRedis(t.url, { maxRetriesPerRequest: null });
    const fail = async () => {
      throw new UnrecoverableError('stalled too often');
    };
    const worker = new Worker(QUEUES.activations, fail, { connection, prefix: t.prefix });
    await waitFor(async () => (await state(finished.runId)) === 'failed', { timeoutMs: 10_000, intervalMs: 20, what: 'the job failed' });
    await worker.close();
    await closeRedis(connection);
    await enqueueActivations(queue, [live]);
    expect(await waker.revive([finished, gone, live])).toBe(2);
    expect(await state(finished.runId)).toBe('waiting');
    expect(await state(gone.runId)).toBe('waiting');
    expect(await state(live.runId)).toBe('waiting');
  });
});
