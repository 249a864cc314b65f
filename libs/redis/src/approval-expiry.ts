import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { ApprovalExpiryJobSchema, QUEUES, type ApprovalExpiryJob } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { Redis } from './connection';

export type ApprovalExpiryQueue = Queue<ApprovalExpiryJob>;

/** Margin added to a job's delay so that, fired on time, it finds the approval due by the database's clock. */
const DUE_MARGIN_MS = 50;

/**
 * The BullMQ queue `approval-expiry` under the installation's prefix: one
 * delayed job per pending approval (job id = approval id, so scheduling one
 * twice is one job). A failed handling is retried with backoff; the approvals
 * service's sweep expires whatever a lost job leaves pending.
 */
export function createApprovalExpiryQueue(connection: Redis, prefix: string): ApprovalExpiryQueue {
  return new Queue<ApprovalExpiryJob>(QUEUES.approvalExpiry, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 86_400 },
    },
  });
}

/** Schedules each approval's expiry job to fire when it expires (at once when already past). */
export async function scheduleApprovalExpiries(queue: ApprovalExpiryQueue, items: ReadonlyArray<{ approvalId: string; expiresAt: Date }>, now = Date.now()): Promise<void> {
  if (items.length === 0) return;
  await queue.addBulk(
    items.map(({ approvalId, expiresAt }) => ({
      name: 'expire',
      data: { schemaVersion: 1 as const, approvalId },
      opts: { jobId: approvalId, delay: Math.max(0, expiresAt.getTime() - now) + DUE_MARGIN_MS },
    })),
  );
}

/** Options of createApprovalExpiryWorker. */
export interface ApprovalExpiryWorkerOptions {
  /** A connection with `maxRetriesPerRequest: null` (BullMQ blocks on it); the caller closes it. */
  connection: Redis;
  prefix: string;
  /** Jobs handled at once. */
  concurrency: number;
  /** Expires the approval (conditionally: a decision may have come first). */
  handle(job: ApprovalExpiryJob): Promise<void>;
  log: Logger;
}

/** The worker on `approval-expiry`: job data is parsed here (bad data can never succeed: UnrecoverableError). */
export function createApprovalExpiryWorker(options: ApprovalExpiryWorkerOptions): Worker<ApprovalExpiryJob> {
  const worker = new Worker<ApprovalExpiryJob>(
    QUEUES.approvalExpiry,
    async (job) => {
      const parsed = ApprovalExpiryJobSchema.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid approval-expiry job: ${parsed.error.message}`);
      await options.handle(parsed.data);
    },
    { connection: options.connection, prefix: options.prefix, concurrency: options.concurrency },
  );
  worker.on('error', (error) => options.log.warn({ err: error }, 'approval-expiry worker error'));
  worker.on('failed', (job, error) => options.log.warn({ err: error, jobId: job?.id }, 'approval-expiry job failed'));
  return worker;
}
