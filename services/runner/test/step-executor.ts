import type { RunOutcome } from '@switchyard/contracts';
import { scriptStepDelayMs } from '../src/model/scripted-model';
import type { ExecutableRun, ExecutionContext, ExecutionResult, Executor } from '../src/ports';

/** Longest summary kept (RunOutcomeSchema's bound). */
const MAX_SUMMARY = 10_000;

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}


/**
 * Why this exists: the runner's scheduling tests need runs that take steps
 * and can be stopped between them, without the agent loop's stores. Walks
 * `spec.script`, one turn per step, checking before each step whether the
 * run must stop; steps only say things.
 */
export class StepExecutor implements Executor {
  async execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
    const stepMs = scriptStepDelayMs(run.spec.model.params);
    const said: string[] = [];
    const outcome = (): RunOutcome => ({ summary: said.join('\n').slice(0, MAX_SUMMARY), turns: said.length, toolCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 });
    for (const step of run.spec.script ?? []) {
      if (context.signal.aborted) return { status: 'failed', error: { code: 'aborted', message: String(context.signal.reason ?? 'aborted') }, outcome: outcome() };
      const reason = await context.shouldStop();
      if (reason) return { status: 'cancelled', reason, outcome: outcome() };
      await pause(stepMs, context.signal);
      said.push(step.say ?? '');
    }
    if (context.signal.aborted) return { status: 'failed', error: { code: 'aborted', message: String(context.signal.reason ?? 'aborted') }, outcome: outcome() };
    return { status: 'completed', outcome: outcome() };
  }
}
