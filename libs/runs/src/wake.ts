import type { ActivationJob } from '@switchyard/contracts';

/** A run a change made claimable (created `queued`, resumed, put back in line): its lane needs a claim. */
export interface Wake {
  runId: string;
  workspaceId: string;
  agentId: string;
}

/**
 * Where wakes go: BullMQ's `activations` queue (the design card's activation transport). Its
 * `addBulk` is all the waker uses; libs/redis `createActivationQueue` makes one.
 */
export interface ActivationTransport {
  addBulk(jobs: Array<{ name: string; data: ActivationJob; opts: { jobId: string } }>): Promise<unknown>;
}

/** Where a wake left to the sweep is said. */
export interface WakeLog {
  warn(data: object, message: string): void;
}

/**
 * The one enqueuer of activation jobs (issue 33 §4, decision 0044). A job names a run; the runner
 * that takes it claims the run's lane (run_queue_claim), whatever run of the lane it starts. Every
 * change that makes runs claimable hands them here after its commit, one of two ways:
 *
 * - {@link wake}: a new run. A job that cannot be added rejects: the caller fails the run and asks
 *   its client to try again (the gateway), or retries its batch (the matcher).
 * - {@link wakeOrLeaveToSweep}: a change that stands whatever happens to the wake — a resume, a
 *   teammate's turn after a delivered message. A lost job is logged, never thrown: the runner's
 *   sweep claims every lane whose queued runs grew old, and a resumed run kept its place in line.
 *
 * Job ids make both idempotent: a new run's job id is its id (the same run added twice is one
 * job); a resume's is `<runId>-resume-<key>`, one per resume (the run's first job may still be
 * kept as done).
 */
export class RunWaker {
  constructor(
    private readonly transport: ActivationTransport,
    private readonly log: WakeLog,
  ) {}

  /** Wakes the lanes of new runs; rejects when the jobs could not be added. */
  async wake(runs: readonly Wake[]): Promise<void> {
    await this.add(runs, null);
  }

  /** Wakes the lanes of runs a committed change made claimable again; false when the wake was lost (left to the sweep). */
  async wakeOrLeaveToSweep(runs: readonly Wake[], resumeKey: string | null = null): Promise<boolean> {
    try {
      await this.add(runs, resumeKey);
      return true;
    } catch (error) {
      this.log.warn({ err: error, runs: runs.map((run) => run.runId) }, 'runs made claimable but their wake could not be added; the runner sweep claims their lanes');
      return false;
    }
  }

  private async add(runs: readonly Wake[], resumeKey: string | null): Promise<void> {
    if (runs.length === 0) return;
    await this.transport.addBulk(
      runs.map((run) => ({
        name: resumeKey === null ? 'run' : 'resume',
        data: { schemaVersion: 1, runId: run.runId, workspaceId: run.workspaceId, agentId: run.agentId },
        opts: { jobId: resumeKey === null ? run.runId : `${run.runId}-resume-${resumeKey}` },
      })),
    );
  }
}
