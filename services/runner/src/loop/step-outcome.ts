import type { RunStateToolCall } from '@switchyard/contracts';

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
