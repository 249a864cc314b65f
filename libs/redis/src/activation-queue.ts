import { Queue } from 'bullmq';
import { QUEUES, type ActivationJob } from '@switchyard/contracts';
import type { Redis } from 'ioredis';

export type ActivationQueue = Queue<ActivationJob>;

/**
 * The BullMQ queue `activations` under the installation's prefix. Jobs are
 * added with the run id as job id, so the same run is never queued twice;
 * finished jobs are kept briefly for the dashboard, not for ever.
 */
export function createActivationQueue(connection: Redis, prefix: string): ActivationQueue {
  return new Queue<ActivationJob>(QUEUES.activations, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 86_400 } },
  });
}

/** Enqueues runs (job id = run id; adding an existing id is a no-op). */
export async function enqueueActivations(queue: ActivationQueue, jobs: readonly ActivationJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await queue.addBulk(jobs.map((data) => ({ name: 'run', data, opts: { jobId: data.runId } })));
}

/**
 * Wakes the lanes of resumed runs. A run's first job (job id = run id) is
 * kept a while once done, so a resume's job has an id of its own per
 * resume (`<runId>-resume-<key>`): the same resume added twice is one job.
 */
export async function enqueueResumes(queue: ActivationQueue, jobs: ReadonlyArray<{ job: ActivationJob; key: string }>): Promise<void> {
  if (jobs.length === 0) return;
  await queue.addBulk(jobs.map(({ job, key }) => ({ name: 'resume', data: job, opts: { jobId: `${job.runId}-resume-${key}` } })));
}
