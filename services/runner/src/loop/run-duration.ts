import type { AgentLoopOptions } from './loop-options';
import type { RunSession } from './run-session';
import { EXECUTION_RAN } from './run-state';


/** The run's wall-clock limit: its spec's `budget.maxDurationMs`, else the runner's default; null: none. */
export function durationLimitMs(session: RunSession, options: AgentLoopOptions): number | null {
  return session.run.spec.budget.maxDurationMs ?? options.maxDurationMs ?? null;
}

/**
 * Running time so far: what earlier executions recorded (`execution_ran`
 * notices, folded into the tally) plus this execution's. Time parked is in
 * neither: an execution ends at its park and the next one starts at its resume.
 */
export function ranMs(session: RunSession): number {
  return (session.recorder.state.tally.ranMs ?? 0) + (performance.now() - session.ranSince);
}

/** Why the run must stop for its duration limit; null while within it. */
export function overDuration(session: RunSession, options: AgentLoopOptions): string | null {
  const limit = durationLimitMs(session, options);
  if (limit === null) return null;
  const ran = ranMs(session);
  return ran >= limit ? `the run ran ${Math.round(ran)} ms; its maxDurationMs is ${limit}` : null;
}

/**
 * The run's signal, also aborted when the limit is reached: a model call in flight is bounded too.
 * `release` clears the timer once the call is over (a limit of a day must not leave a timer per call).
 */
export function boundedSignal(session: RunSession, options: AgentLoopOptions): { signal: AbortSignal; release: () => void } {
  const limit = durationLimitMs(session, options);
  if (limit === null) return { signal: session.context.signal, release: () => {} };
  const timeUp = new AbortController();
  const timer = setTimeout(() => timeUp.abort(new Error('duration_exceeded')), Math.max(1, Math.ceil(limit - ranMs(session))));
  return { signal: AbortSignal.any([session.context.signal, timeUp.signal]), release: () => clearTimeout(timer) };
}

/** Records this execution's running time as the run parks; a park that fails goes on counting from now, not twice. */
export function recordRanTime(session: RunSession): void {
  const now = performance.now();
  const ms = Math.round(now - session.ranSince);
  session.recorder.add('notice', { code: EXECUTION_RAN, message: `this execution ran ${ms} ms before the run parked`, ranMs: ms });
  session.ranSince = now;
}
