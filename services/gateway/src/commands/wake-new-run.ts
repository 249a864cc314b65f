import { AppError, ErrorCode, RUN_FAILURE_CODES } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { ActivationSink, RunStore } from '../run-ports';

/** What waking a new run needs. */
export interface WakeNewRunDeps {
  runs: Pick<RunStore, 'fail'>;
  activations: ActivationSink;
  log: Logger;
}

/**
 * Wakes a run the gateway just committed `queued` (a manual run, a retry, a delegation, a try;
 * RunWaker.wake of libs/runs). A wake that cannot be added leaves no run waiting for nothing: the
 * run is failed `enqueue_failed` and the client gets 503 to try again. `before` runs first, in the
 * same guard (a delegation's objective posted to the run's mailbox).
 */
export async function wakeNewRun(
  deps: WakeNewRunDeps,
  run: { id: string; workspaceId: string; agentId: string },
  what: 'run' | 'try',
  before?: () => Promise<void>,
): Promise<void> {
  try {
    await before?.();
    await deps.activations.wake([{ runId: run.id, workspaceId: run.workspaceId, agentId: run.agentId }]);
  } catch (error) {
    deps.log.error({ err: error, runId: run.id, agentId: run.agentId }, 'run committed but its activation could not be enqueued');
    await deps.runs.fail(run.workspaceId, run.id, RUN_FAILURE_CODES.enqueueFailed, { code: ErrorCode.UNAVAILABLE, message: 'the activation could not be enqueued' });
    throw new AppError(ErrorCode.UNAVAILABLE, `the ${what} could not be queued: try again`, { id: run.id }, { cause: error });
  }
}
