import {
  ACTIVATION_DROP_REASONS,
  ACTIVATION_SKIP_REASONS,
  AgentFlowSchema,
  isTerminalRunStatus,
  MAX_AGENT_CONCURRENCY,
  MODEL_ERROR_CODES,
  RUN_CANCEL_REASONS,
  RUN_FAILURE_CODES,
  RunReasonSchema,
  RunStatusSchema,
  TERMINAL_RUN_STATUSES,
  TOOL_ERROR_CODES,
  TOOL_REFUSAL_CODES,
} from '@switchyard/contracts';

/*
 * The run vocabulary is stored (runs.reason, runs.error.code, transcripts) and
 * labels metrics: a word may be added or retired, never renamed. These lists
 * are the stored words as they are; a rename fails here.
 */
describe('the run vocabulary', () => {
  it('keeps every stored word as it is', () => {
    expect(Object.values(RUN_FAILURE_CODES)).toEqual([
      'runner_lost',
      'spec_invalid',
      'executor_error',
      'max_turns_reached',
      'budget_exceeded',
      'duration_exceeded',
      'run_context_missing',
      'aborted',
      'enqueue_failed',
      'continuation_limit',
    ]);
    expect(Object.values(MODEL_ERROR_CODES)).toEqual([
      'model_rate_limited',
      'model_unavailable',
      'model_timeout',
      'model_auth_failed',
      'model_bad_request',
      'model_invalid_response',
      'model_aborted',
      'model_url_refused',
    ]);
    expect(Object.values(TOOL_ERROR_CODES)).toEqual([
      'tool_unknown',
      'tool_arguments_invalid',
      'tool_failed',
      'tool_timeout',
      'tool_unavailable',
      'tool_result_invalid',
      'tool_cancelled',
      'tool_outcome_unknown',
    ]);
    expect(Object.values(TOOL_REFUSAL_CODES)).toEqual(['tool_denied', 'approval_required', 'approval_denied', 'approval_expired', 'plan_read_only']);
    expect(Object.values(RUN_CANCEL_REASONS)).toEqual(['stopped', 'agents_paused']);
    // In the order the matcher's guards run.
    expect(Object.values(ACTIVATION_SKIP_REASONS)).toEqual(['paused', 'disabled', 'self_caused', 'depth_exceeded', 'cooldown', 'duplicate', 'throttled', 'debounced']);
    expect(Object.values(ACTIVATION_DROP_REASONS)).toEqual(['queue_full']);
  });

  it('gives no two meanings to one run reason', () => {
    const reasons = [RUN_FAILURE_CODES, MODEL_ERROR_CODES, RUN_CANCEL_REASONS, ACTIVATION_DROP_REASONS].flatMap((words) => Object.values(words));
    expect(new Set(reasons).size).toBe(reasons.length);
    for (const reason of reasons) expect(RunReasonSchema.safeParse(reason).success).toBe(true);
    expect(RunReasonSchema.safeParse('tool_failed').success).toBe(false);
  });

  it('names as terminal exactly the statuses a run never leaves', () => {
    expect([...TERMINAL_RUN_STATUSES]).toEqual(['completed', 'failed', 'cancelled', 'dropped']);
    expect(RunStatusSchema.options.filter((status) => !isTerminalRunStatus(status))).toEqual(['queued', 'running', 'awaiting_approval', 'awaiting_event']);
  });

  it('bounds an agent’s concurrency by MAX_AGENT_CONCURRENCY', () => {
    expect(AgentFlowSchema.safeParse({ concurrency: MAX_AGENT_CONCURRENCY }).success).toBe(true);
    expect(AgentFlowSchema.safeParse({ concurrency: MAX_AGENT_CONCURRENCY + 1 }).success).toBe(false);
  });
});
