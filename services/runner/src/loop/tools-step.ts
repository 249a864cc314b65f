import type { RunStateNext } from '@switchyard/contracts';
import type { AgentLoopOptions } from './loop-options';
import type { RunSession } from './run-session';
import type { StepOutcome } from './steps';
import { callTools } from './tool-calls';

/** Runs the calls of the last answer that have no result yet; a final answer's calls end the run's last step. */
export async function toolsStep(session: RunSession, next: Extract<RunStateNext, { type: 'tools' }>, options: AgentLoopOptions): Promise<StepOutcome> {
  const { run, host, tools, recorder, context } = session;
  if (!host) throw new Error('the run has no tool host: tools step before set-up');
  await callTools({ calls: next.calls, host, tools, spec: run.spec, signal: context.signal, transcript: recorder, metrics: options.metrics });
  return next.final ? { type: 'finished' } : { type: 'tools_ran', calls: next.calls.length };
}
