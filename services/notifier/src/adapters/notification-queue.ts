import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { NOTIFICATIONS_QUEUE, NotificationJobSchema, type NotificationJob } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { Redis } from '@switchyard/redis';
import type { Delivery } from '../delivery';
import type { JobSink } from '../ports';

/** The BullMQ queue `notifications` (finished jobs kept briefly for the dashboard). */
export function createNotificationQueue(connection: Redis, prefix: string, options: { attempts: number }): Queue<NotificationJob> {
  return new Queue<NotificationJob>(NOTIFICATIONS_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: options.attempts,
      // 'custom': the worker's backoffStrategy (exponential, or Retry-After when longer).
      backoff: { type: 'custom' },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 7 * 86_400 },
    },
  });
}

/** Adds deliveries with their keys as job ids: a job already there (or recently done) is not added again. */
export function queueSink(queue: Queue<NotificationJob>): JobSink {
  return { add: async (jobs) => void (await queue.addBulk(jobs.map(({ id, job }) => ({ name: job.type, data: job, opts: { jobId: id } })))) };
}

/** A retry Mattermost asked for (`Retry-After`), honoured by the backoff strategy. */
class RetryAfter extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** Options of startDeliveryWorker. */
export interface DeliveryWorkerOptions {
  connection: Redis;
  prefix: string;
  delivery: Delivery;
  concurrency: number;
  lockMs: number;
  backoffMs: number;
  log: Logger;
}

/**
 * The worker of `notifications`: a 429 or a target backing off moves the
 * job to delayed (no attempt used, no worker slot held); other failures
 * retry with exponential backoff, or `Retry-After` when the server gave one;
 * a refusal that cannot change (4xx) fails the job at once.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): Worker<NotificationJob> {
  const worker = new Worker<NotificationJob>(
    NOTIFICATIONS_QUEUE,
    async (job: Job<NotificationJob>, token?: string) => {
      const parsed = NotificationJobSchema.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError('notification job does not parse');
      const outcome = await options.delivery.process(parsed.data);
      const log = options.log.child({ jobId: job.id, ruleId: parsed.data.ruleId, factId: parsed.data.fact.id });
      switch (outcome.type) {
        case 'done':
          log.debug({ result: outcome.result, postId: outcome.postId }, 'notification delivered');
          return outcome;
        case 'later':
          log.info({ reason: outcome.reason, at: new Date(outcome.at).toISOString() }, 'notification delayed');
          await job.moveToDelayed(outcome.at, token);
          throw new DelayedError();
        case 'retry':
          log.warn({ reason: outcome.reason, attempt: job.attemptsMade + 1 }, 'notification failed: retrying');
          throw new RetryAfter(outcome.reason, outcome.retryAfterMs);
        case 'give_up':
          log.warn({ reason: outcome.reason }, 'notification refused: giving up');
          throw new UnrecoverableError(outcome.reason);
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: Math.max(250, Math.floor(options.lockMs / 2)),
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) =>
          Math.max(error instanceof RetryAfter ? (error.retryAfterMs ?? 0) : 0, options.backoffMs * 2 ** Math.max(0, attemptsMade - 1)),
      },
    },
  );
  worker.on('error', (err) => options.log.warn({ err }, 'notifications worker error'));
  return worker;
}
