import { UnrecoverableError, Worker } from 'bullmq';
import { ActivationJobSchema, QUEUES, type ActivationJob } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { Redis } from '@switchyard/redis';

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
  /** Claims the job's lane (Runner.handle); resolves once the claim is made, not when its runs end. */
  handle(job: ActivationJob): Promise<void>;
  log: Logger;
}

/**
 * The BullMQ worker on `activations`: a job is only a wake-up of its run's
 * lane (decision 0009). Job data is parsed here (bad data can never succeed:
 * UnrecoverableError). A claim that fails (the database was away) fails the
 * job; the sweep claims the lane later (its queued runs grow old).
 */
export function createActivationWorker(options: ActivationWorkerOptions): Worker<ActivationJob> {
  const { log } = options;
  const worker = new Worker<ActivationJob>(
    QUEUES.activations,
    async (job) => {
      const parsed = ActivationJobSchema.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid activation job: ${parsed.error.message}`);
      await options.handle(parsed.data);
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
 * Back-pressure on activation jobs (decision 0053): while the process holds
 * as many runs as it can, its worker fetches no job (a local pause), so the
 * jobs go to runners with room; it fetches again once a slot frees. The
 * pauses and resumes are applied one after another, the latest state last.
 */
export class ActivationBackPressure {
  private worker: Worker<ActivationJob> | undefined;
  private wanted = false;
  private applied = false;
  private applying: Promise<void> = Promise.resolve();

  constructor(private readonly log: Logger) {}

  /** The worker to pause; the state set before is applied to it now. */
  attach(worker: Worker<ActivationJob>): void {
    this.worker = worker;
    this.apply();
  }

  /** Whether the process is full. */
  set(full: boolean): void {
    this.wanted = full;
    this.apply();
  }

  private apply(): void {
    this.applying = this.applying
      .then(async () => {
        const worker = this.worker;
        if (!worker || this.wanted === this.applied || worker.closing) return;
        this.applied = this.wanted;
        // Jobs already fetched go on: their claims wait for a slot (ProcessCapacity).
        if (this.applied) await worker.pause(true);
        else await worker.resume();
      })
      .catch((error: unknown) => this.log.warn({ err: error }, 'activation back-pressure not applied'));
  }
}
