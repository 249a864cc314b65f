import type { RunOutcome } from '@switchyard/contracts';
import type { ExecutableRun, ExecutionContext, ExecutionResult, Executor } from './ports';

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
 * The per-step delay of a scripted agent: `model.params.stepMs` (a number of
 * milliseconds, default 0). It lets tests and demos make runs take measurable
 * time without a field the agent-loop issue would have to carry on.
 */
export function scriptedStepMs(run: ExecutableRun): number {
  const value = run.spec.model.params?.stepMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, 60_000) : 0;
}

/**
 * Drives the execution shell for `model.provider === "scripted"`: walks
 * `spec.script`, one turn per step, checking before each step whether the run
 * must stop (stop requested, kill switch, lost slot). Steps only say things
 * here; tool calls arrive with the agent loop (issue 4), so `toolCalls`,
 * tokens and cost stay 0.
 */
export class ScriptedExecutor implements Executor {
  async execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
    const stepMs = scriptedStepMs(run);
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

/**
 * Picks the executor for a run's model provider. Only `scripted` exists in
 * this issue; any other provider fails the run with `provider_not_available`.
 */
export class ProviderExecutor implements Executor {
  constructor(private readonly byProvider: Readonly<Record<string, Executor>>) {}

  execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
    const executor = this.byProvider[run.spec.model.provider];
    if (!executor) {
      return Promise.resolve({
        status: 'failed',
        error: { code: 'provider_not_available', message: `no executor for model provider ${run.spec.model.provider} yet` },
      });
    }
    return executor.execute(run, context);
  }
}
