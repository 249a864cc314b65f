import type { AgentSpec } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { ExecutionResult, Executor, RunEnding, RunStore, SlotLease, StartedRun, StopReason } from './ports';

/** Error code of a run whose runner died (or lost its slot) mid-run. */
export const RUNNER_LOST = 'runner_lost';

/** What executing one run needs besides the run. */
export interface RunExecutionDeps {
  executor: Executor;
  store: Pick<RunStore, 'stopReason'>;
  log: Logger;
  /** Slot lease; renewed every third of it. */
  leaseMs: number;
  /** The controllers of the runs in progress (the runner aborts them all when it stops). */
  controllers: Set<AbortController>;
}

/**
 * Executes a started run while renewing its slot: a renewal that finds the
 * slot gone (another run may hold it now) aborts the run, which then ends
 * `runner_lost`. Returns the ending to write; an executor that throws ends
 * the run `failed`, `executor_error`.
 */
export async function executeUnderLease(deps: RunExecutionDeps, run: StartedRun, spec: AgentSpec, lease: SlotLease): Promise<RunEnding> {
  const { store, executor, log } = deps;
  const controller = new AbortController();
  deps.controllers.add(controller);
  let lost = false;
  const renewal = setInterval(() => {
    lease.renew().then(
      (held) => {
        if (!held && !lost) {
          lost = true;
          controller.abort(RUNNER_LOST);
        }
      },
      (error: unknown) => log.warn({ err: error, runId: run.id }, 'slot renewal failed'),
    );
  }, Math.max(50, Math.floor(deps.leaseMs / 3)));
  let result: ExecutionResult;
  try {
    // The first stop check is the one read as the run started; later ones ask the ledger.
    const { stop, ...startedRun } = run;
    let firstCheck: StopReason | null | undefined = stop;
    const shouldStop = async () => {
      if (firstCheck === undefined) return store.stopReason(run.id);
      const reason = firstCheck;
      firstCheck = undefined;
      return reason;
    };
    result = await executor.execute({ ...startedRun, spec }, { signal: controller.signal, shouldStop });
  } catch (error) {
    log.error({ err: error, runId: run.id }, 'executor threw');
    result = { status: 'failed', error: { code: 'executor_error', message: error instanceof Error ? error.message : String(error) } };
  } finally {
    clearInterval(renewal);
    deps.controllers.delete(controller);
  }
  return toEnding(result, lost || controller.signal.aborted);
}

/** The ledger ending of an executor's result; an aborted run (slot lost, process stopping) is runner_lost. */
function toEnding(result: ExecutionResult, lost: boolean): RunEnding {
  if (lost) {
    return { status: 'failed', reason: RUNNER_LOST, outcome: result.outcome ?? null, error: { code: RUNNER_LOST, message: 'the run lost its agent slot' } };
  }
  switch (result.status) {
    case 'completed':
      return { status: 'completed', reason: null, outcome: result.outcome, error: null };
    case 'cancelled':
      return { status: 'cancelled', reason: result.reason, outcome: result.outcome, error: null };
    case 'failed':
      return { status: 'failed', reason: result.error.code, outcome: result.outcome ?? null, error: result.error };
  }
}
