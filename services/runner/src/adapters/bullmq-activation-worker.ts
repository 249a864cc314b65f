import { DelayedError, Job, UnrecoverableError, Worker, type Queue } from 'bullmq';
import { ActivationJobSchema, QUEUES, type ActivationJob } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { enqueueActivations, type Redis } from '@switchyard/redis';
import type { JobWaker } from '../ports';
import type { JobDecision } from '../runner';

/** Options of createActivationWorker. */
export interface ActivationWorkerOptions {
  /** A connection with `maxRetriesPerRequest: null` (BullMQ blocks on it); the caller closes it. */
  connection: Redis;
  prefix: string;
  /** Jobs handled at once by this process. */
  concurrency: number;
  /** BullMQ's job lock; a dead runner's job is moved back to wait after it. */
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
  /** Wait after an unexpected error (the database was away) before the job is tried again. @defaultValue 1000 */
  errorDelayMs?: number;
  handle(job: ActivationJob): Promise<JobDecision>;
  log: Logger;
}

/**
 * The BullMQ worker on `activations`. Job data is parsed here (bad data can
 * never succeed: UnrecoverableError). A job that must wait its turn is moved
 * back to delayed by BullMQ's documented manual-delay pattern
 * (`moveToDelayed` then `DelayedError`), which neither fails it nor counts
 * an attempt. An unexpected error also delays instead of failing: the run is
 * in the ledger and still has to execute, and a failed job would leave it
 * queued for ever.
 */
export function createActivationWorker(options: ActivationWorkerOptions): Worker<ActivationJob> {
  const { log } = options;
  const worker = new Worker<ActivationJob>(
    QUEUES.activations,
    async (job, token) => {
      const parsed = ActivationJobSchema.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid activation job: ${parsed.error.message}`);
      let decision: JobDecision;
      try {
        decision = await options.handle(parsed.data);
      } catch (error) {
        log.error({ err: error, runId: parsed.data.runId }, 'activation failed; tried again later');
        decision = { action: 'later', delayMs: options.errorDelayMs ?? 1000 };
      }
      if (decision.action === 'later') {
        await job.moveToDelayed(Date.now() + decision.delayMs, token);
        throw new DelayedError();
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDuration,
      stalledInterval: options.stalledInterval,
      maxStalledCount: options.maxStalledCount,
    },
  );
  worker.on('error', (error) => log.warn({ err: error }, 'activation worker error'));
  worker.on('failed', (job, error) => log.warn({ err: error, jobId: job?.id }, 'activation job failed'));
  return worker;
}

/**
 * Wakes delayed activation jobs (job id = run id) by promoting them, so the
 * agent's next run starts as soon as a slot frees instead of after its
 * backoff. A job that is not delayed (waiting, active, gone) is left alone.
 */
export class BullmqJobWaker implements JobWaker {
  constructor(
    private readonly queue: Queue<ActivationJob>,
    /** A connection to the queue's Redis, for the read of its delayed set. */
    private readonly redis: Redis,
  ) {}

  async wake(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    // Only a delayed job can be promoted, and most of these wait already or are gone: one read
    // of the delayed set says which are, before reading and promoting them one by one.
    const scores = await this.redis.zmscore(this.queue.keys.delayed!, ...runIds);
    await Promise.all(
      runIds
        .filter((_, index) => scores[index] !== null)
        .map(async (runId) => {
          const job = await Job.fromId<ActivationJob>(this.queue, runId);
          // promote() refuses a job that is not delayed (any more): that race is harmless.
          await job?.promote().catch(() => undefined);
        }),
    );
  }

  async withdraw(runId: string): Promise<void> {
    // BullMQ leaves a job that is being processed (locked) where it is.
    await this.queue.remove(runId);
  }

  async revive(jobs: readonly ActivationJob[]): Promise<number> {
    let added = 0;
    for (const data of jobs) {
      const job = await Job.fromId<ActivationJob>(this.queue, data.runId);
      if (job) {
        const state = await job.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
        // The job id is the run id: a finished job must go before a new one can take it.
        await job.remove();
      }
      await enqueueActivations(this.queue, [data]);
      added += 1;
    }
    return added;
  }
}
