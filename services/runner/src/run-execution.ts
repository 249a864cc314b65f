import { MAX_RUN_CONTINUATIONS, RUN_FAILURE_CODES } from '@switchyard/contracts';
import type { AgentSpec } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { ExecutionContext, ExecutionResult, Executor, RunEnding, RunReads, StartedRun, StopReason } from './ports';

/** Error code of a run whose runner died (or lost its lease) mid-run. */
export const RUNNER_LOST = RUN_FAILURE_CODES.runnerLost;

/** What executing one run needs besides the run. */
export interface RunExecutionDeps {
  executor: Executor;
  reads: Pick<RunReads, 'stopReason'>;
  log: Logger;
}

/**
 * Executes a started run; the caller holds its lease and aborts `signal`
 * when the lease is lost or the process stops, and the run then ends
 * `runner_lost`. Returns the ending to write, or `parked` when the run parked
 * on approvals (through `park`; nothing to end); an executor that throws ends
 * the run `failed`, `executor_error`. A run whose lease lapsed more than
 * MAX_RUN_CONTINUATIONS times (decision 0051) is failed `continuation_limit`
 * without executing: its execution may be what kills its runners.
 */
export async function executeRun(
  deps: RunExecutionDeps,
  run: StartedRun,
  spec: AgentSpec,
  signal: AbortSignal,
  park?: ExecutionContext['park'],
  parkOnWait?: ExecutionContext['parkOnWait'],
): Promise<RunEnding | { status: 'parked' }> {
  const { reads, executor, log } = deps;
  const lapses = run.leaseLapses ?? 0;
  if (lapses > MAX_RUN_CONTINUATIONS) {
    const code = RUN_FAILURE_CODES.continuationLimit;
    log.warn({ runId: run.id, lapses }, 'run not continued: its lease lapsed too often');
    return { status: 'failed', reason: code, outcome: null, error: { code, message: `the run's lease lapsed ${lapses} times (its runner died or stalled each time); it is not continued past ${MAX_RUN_CONTINUATIONS}` } };
  }
  let result: ExecutionResult;
  try {
    // The first stop check is the one read as the run started; later ones ask the ledger.
    const { stop, ...startedRun } = run;
    let firstCheck: StopReason | null | undefined = stop;
    const shouldStop = async () => {
      if (firstCheck === undefined) return reads.stopReason(run.id);
      const reason = firstCheck;
      firstCheck = undefined;
      return reason;
    };
    result = await executor.execute({ ...startedRun, spec }, { signal, shouldStop, ...(park ? { park } : {}), ...(parkOnWait ? { parkOnWait } : {}) });
  } catch (error) {
    log.error({ err: error, runId: run.id }, 'executor threw');
    result = { status: 'failed', error: { code: RUN_FAILURE_CODES.executorError, message: error instanceof Error ? error.message : String(error) } };
  }
  return toEnding(result, signal.aborted);
}

/** The ledger ending of an executor's result; an aborted run (lease lost, process stopping) is runner_lost. */
function toEnding(result: ExecutionResult, lost: boolean): RunEnding | { status: 'parked' } {
  // Parking committed before anything could abort the run: it waits for its approvals.
  if (result.status === 'parked') return result;
  if (lost) {
    return { status: 'failed', reason: RUNNER_LOST, outcome: result.outcome ?? null, error: { code: RUNNER_LOST, message: 'the run lost its lease or its runner stopped' } };
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
