import { Queue } from 'bullmq';
import { QUEUES, type ActivationJob } from '@switchyard/contracts';
import type { Redis } from './connection';

export type ActivationQueue = Queue<ActivationJob>;

/**
 * The BullMQ queue `activations` under the installation's prefix: the
 * transport of libs/runs's RunWaker, the one enqueuer of its jobs (decision
 * 0044). Finished jobs are kept briefly for the dashboard, not for ever.
 */
export function createActivationQueue(connection: Redis, prefix: string): ActivationQueue {
  return new Queue<ActivationJob>(QUEUES.activations, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 86_400 } },
  });
}
