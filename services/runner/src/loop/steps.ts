import type { RunStateToolCall } from '@switchyard/contracts';
import type { AgentLoopOptions } from './loop-options';
import { modelStep } from './model-step';
import type { RunSession } from './run-session';
import { toolsStep } from './tools-step';

/**
 * How one step of the loop ended (like openai-agents' NextStep). The run's
 * state after it is in `RunSession.recorder.state`, and in the transcript
 * after the next flush.
 */
export type StepOutcome =
  /** The model answered and the run goes on: with its tool calls (none when it must be asked again). */
  | { type: 'model_called'; toolCalls: RunStateToolCall[] }
  /** Every pending tool call ran (or was refused), and its result is recorded. */
  | { type: 'tools_ran'; calls: number }
  /** Calls a person must decide first: the run is parked on their approvals (tools-step.ts) and the execution ends. */
  | { type: 'interrupted'; pending: RunStateToolCall[] }
  /** The model's final answer is recorded (with its tool calls' results): the run may complete. */
  | { type: 'finished' }
  /** The run must end failed (max turns, budget, the model's error). */
  | { type: 'failed'; code: string; message: string };

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
