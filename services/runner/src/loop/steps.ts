import type { AgentLoopOptions } from './loop-options';
import { modelStep } from './model-step';
import type { RunSession } from './run-session';
import type { StepOutcome } from './step-outcome';
import { toolsStep } from './tools-step';

export type { StepOutcome } from './step-outcome';

/** Takes the step the run's state says comes next (a model call, or the pending tool calls). */
export function takeStep(session: RunSession, options: AgentLoopOptions): Promise<StepOutcome> {
  const { next } = session.recorder.state;
  switch (next.type) {
    case 'model':
      return modelStep(session, options);
    case 'tools':
      return toolsStep(session, next, options);
    case 'finish':
      // The loop completes a run in this state without a step (AgentLoop.drive).
      return Promise.resolve({ type: 'finished' });
  }
}
