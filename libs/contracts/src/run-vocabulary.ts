import { z } from 'zod';
import { RunStatusSchema, type RunStatus } from './runs';

/*
 * The run vocabulary, each word written once: the statuses a run ends in, the
 * codes and reasons a run, a model call or a tool call ends with, and the
 * matcher's skip and drop reasons. They are stored (runs.reason,
 * runs.error.code, transcripts) and are metric labels: never renamed, only
 * retired.
 */

/** The statuses a run never leaves. */
export const TerminalRunStatusSchema = RunStatusSchema.extract(['completed', 'failed', 'cancelled', 'dropped']);
export type TerminalRunStatus = z.infer<typeof TerminalRunStatusSchema>;
/** The terminal statuses as a list (SQL `= ANY($1)`, filters). */
export const TERMINAL_RUN_STATUSES: readonly TerminalRunStatus[] = TerminalRunStatusSchema.options;

/** True when a run in `status` has ended for good. */
export function isTerminalRunStatus(status: RunStatus): status is TerminalRunStatus {
  return (TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

/** Most runs of one agent executing at once: the upper bound of an agent's `flow.concurrency`. */
export const MAX_AGENT_CONCURRENCY = 1000;

/**
 * Most times a run is continued after its lease lapsed (its runner died or stalled: decision
 * 0051). A run whose execution kills its runner every time would otherwise go back in line for
 * ever; past this it fails `continuation_limit`. Lapses during an approved call count too.
 */
export const MAX_RUN_CONTINUATIONS = 3;

/** Codes of a run the platform failed (its `reason` and `error.code`), besides the model's. */
export const RUN_FAILURE_CODES = {
  /** The runner executing the run died, stopped or lost its lease before the run ended. */
  runnerLost: 'runner_lost',
  /** The run's stored agent spec does not parse: the runner fails it without executing it. */
  specInvalid: 'spec_invalid',
  /** The executor threw instead of returning a result (a defect); the message is kept. */
  executorError: 'executor_error',
  /** The loop reached the spec's `budget.maxTurns` before the model finished. */
  maxTurnsReached: 'max_turns_reached',
  /** A budget cap (`maxTokens`, `perRunUsd`, `perDayUsd`) was reached before a model call or exceeded after one. */
  budgetExceeded: 'budget_exceeded',
  /** The run ran (parked time not counted) past `budget.maxDurationMs` or the runner's default (decision 0050). */
  durationExceeded: 'duration_exceeded',
  /** The run's context (spec version, fact, session) is no longer in PostgreSQL: nothing to execute. */
  runContextMissing: 'run_context_missing',
  /** The run's signal aborted the loop between steps (its runner stopping). */
  aborted: 'aborted',
  /** The gateway committed a manual run or retry but could not enqueue its activation (the client got 503). */
  enqueueFailed: 'enqueue_failed',
  /**
   * The run's lease lapsed more than MAX_RUN_CONTINUATIONS times (its runner died or stalled each
   * time, decision 0051): it is failed when next started instead of being continued again.
   */
  continuationLimit: 'continuation_limit',
} as const;
export const RunFailureCodeSchema = z.enum(RUN_FAILURE_CODES);
export type RunFailureCode = z.infer<typeof RunFailureCodeSchema>;

/** Why a model call failed; the loop ends the run `failed` with this code. */
export const MODEL_ERROR_CODES = {
  /** Still 429 after the last attempt (or a `retry-after` beyond the attempts). */
  rateLimited: 'model_rate_limited',
  /** 5xx or connection errors after the last attempt. */
  unavailable: 'model_unavailable',
  /** No answer within the timeout (not retried: the provider may still be billing the call). */
  timeout: 'model_timeout',
  /** 401/403, or no API key configured for the agent. */
  authFailed: 'model_auth_failed',
  /** 400/404/422 and other 4xx: the request (model name, params, messages) was refused. */
  badRequest: 'model_bad_request',
  /** A 2xx answer the adapter cannot read (no choice, an unknown tool call type). */
  invalidResponse: 'model_invalid_response',
  /** The caller's signal aborted the call (or a wait between its attempts). */
  aborted: 'model_aborted',
  /**
   * The agent's own `model.baseUrl` is not one the runner calls: it does not resolve, or it is on a
   * private, loopback, link-local or metadata address (RUNNER_MODEL_ALLOW_PRIVATE, RUNNER_MODEL_ALLOWED_HOSTS).
   */
  urlRefused: 'model_url_refused',
} as const;
export const ModelErrorCodeSchema = z.enum(MODEL_ERROR_CODES);
export type ModelErrorCode = z.infer<typeof ModelErrorCodeSchema>;

/** Why a tool call that ran (or was asked for) failed; it reaches the model and the transcript as the call's error. */
export const TOOL_ERROR_CODES = {
  /** No tool of that name in this run. */
  unknown: 'tool_unknown',
  /** The arguments are not a JSON object. */
  argumentsInvalid: 'tool_arguments_invalid',
  /** The tool answered with an error (`isError`, or a JSON-RPC error). */
  failed: 'tool_failed',
  /** No answer within RUNNER_MCP_CALL_TIMEOUT_MS (the request is cancelled). */
  timeout: 'tool_timeout',
  /** The server is gone (crashed, closed, unreachable). */
  unavailable: 'tool_unavailable',
  /** The answer is not a valid MCP tool result. */
  resultInvalid: 'tool_result_invalid',
  /** The run's signal aborted the call. */
  cancelled: 'tool_cancelled',
  /**
   * An approved call whose runner died while executing it: the tool may or
   * may not have acted, and it is never called a second time.
   */
  outcomeUnknown: 'tool_outcome_unknown',
} as const;
export const ToolErrorCodeSchema = z.enum(TOOL_ERROR_CODES);
export type ToolErrorCode = z.infer<typeof ToolErrorCodeSchema>;

/** Why the agent's policy refused a tool call before it ran; it reaches the model and the transcript as the call's error. */
export const TOOL_REFUSAL_CODES = {
  /** A `rules.deny` glob names the tool. */
  denied: 'tool_denied',
  /** Retired: the permission mode asked a person first before approvals parked runs. */
  approvalRequired: 'approval_required',
  /** A person (or the platform: `approvals: "deny"`, a stopped run) denied the parked call; the message names who and their note. */
  approvalDenied: 'approval_denied',
  /** Nobody decided the parked call before its approval expired. */
  approvalExpired: 'approval_expired',
  /** `plan` mode allows read-only tools only. */
  planReadOnly: 'plan_read_only',
} as const;
export const ToolRefusalCodeSchema = z.enum(TOOL_REFUSAL_CODES);
export type ToolRefusalCode = z.infer<typeof ToolRefusalCodeSchema>;

/** Why a run was cancelled (its `reason`). */
export const RUN_CANCEL_REASONS = {
  /** A person stopped it (`POST …/runs/{id}/stop`, the `stop_run` tool). */
  stopped: 'stopped',
  /** The workspace's kill switch (`agentsPaused`) was on at the run's next step. */
  agentsPaused: 'agents_paused',
} as const;
export const RunCancelReasonSchema = z.enum(RUN_CANCEL_REASONS);
export type RunCancelReason = z.infer<typeof RunCancelReasonSchema>;

/**
 * Why a matching fact did not activate an agent (no run is created; counted in
 * the matcher's decisions metric), in the order the matcher's guards run.
 */
export const ACTIVATION_SKIP_REASONS = {
  /** The workspace's kill switch is on. */
  paused: 'paused',
  /** The agent is disabled. */
  disabled: 'disabled',
  /** The fact was caused by a run of the same agent, whose spec does not set `allowSelfCause`. */
  selfCaused: 'self_caused',
  /** The fact's causation depth reached MAX_CAUSATION_DEPTH. */
  depthExceeded: 'depth_exceeded',
  /** A fact of the same kind activated the agent less than its `flow.cooldownMs` ago. */
  cooldown: 'cooldown',
  /** This (agent, fact) pair already has its run (a redelivered fact). */
  duplicate: 'duplicate',
  /** The agent's `flow.throttle` (`limit` activations per `periodMs`) is used up. */
  throttled: 'throttled',
  /** The agent's previous fact reached the debounce step less than its `flow.debounceMs` ago (leading-edge debounce). */
  debounced: 'debounced',
} as const;
export const ActivationSkipReasonSchema = z.enum(ACTIVATION_SKIP_REASONS);
export type ActivationSkipReason = z.infer<typeof ActivationSkipReasonSchema>;

/** Why an activation was recorded as a `dropped` run (its `reason`) instead of queued. */
export const ACTIVATION_DROP_REASONS = {
  /** The agent already has `flow.queueCap` runs queued. */
  queueFull: 'queue_full',
} as const;
export const ActivationDropReasonSchema = z.enum(ACTIVATION_DROP_REASONS);
export type ActivationDropReason = z.infer<typeof ActivationDropReasonSchema>;

/** Every reason a run's row may carry once it ended `failed`, `cancelled` or `dropped`. */
export const RunReasonSchema = z.union([RunFailureCodeSchema, ModelErrorCodeSchema, RunCancelReasonSchema, ActivationDropReasonSchema]);
export type RunReason = z.infer<typeof RunReasonSchema>;

/**
 * The transcript notice a run records, before it waits, when its model call waits for the provider
 * key's shared rate limit or a 429's pause (decision 0060): `waitMs` says how long. A wait, not a failure.
 */
export const WAITING_ON_RATE_LIMIT = 'waiting_on_rate_limit';
