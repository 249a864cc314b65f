import { z } from 'zod';

/**
 * Stable error codes. They are part of the API: never renamed, only retired.
 * Each member says when it is raised and what `data` holds.
 */
export enum ErrorCode {
  /** A body, query or path failed its schema. `data`: the zod issues. */
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  /** The body is not parseable JSON. */
  MALFORMED_JSON = 'MALFORMED_JSON',
  /** The body could not be decoded with the `Content-Encoding` it names (gzip, deflate, br that is not). */
  BODY_ENCODING_INVALID = 'BODY_ENCODING_INVALID',
  /** The JSON body is nested deeper than the door allows. `data`: `{ maxDepth }`. */
  JSON_TOO_DEEP = 'JSON_TOO_DEEP',
  /** The body is over the size limit. `data`: `{ limitBytes }`. */
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  /** A body was sent with a content type other than JSON. */
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  /** No credentials, or credentials that are unknown, revoked or expired. */
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  /** The caller's role does not allow the action. `data`: `{ required, actual }`. */
  FORBIDDEN = 'FORBIDDEN',
  /** The token belongs to another workspace than the one in the path. */
  WORKSPACE_FORBIDDEN = 'WORKSPACE_FORBIDDEN',
  /** No route for the method and path. */
  ROUTE_NOT_FOUND = 'ROUTE_NOT_FOUND',
  /** The path exists but not with this method. `data`: `{ allow }` (the methods it has, also in the `Allow` header). */
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  /** No fact with that id in the workspace. `data`: `{ id }`. */
  EVENT_NOT_FOUND = 'EVENT_NOT_FOUND',
  /** No token with that id in the workspace. `data`: `{ id }`. */
  TOKEN_NOT_FOUND = 'TOKEN_NOT_FOUND',
  /** The workspace slug is already taken. `data`: `{ slug }`. */
  WORKSPACE_EXISTS = 'WORKSPACE_EXISTS',
  /** No workspace with that slug (the operator's CLI). `data`: `{ slug }`. */
  WORKSPACE_NOT_FOUND = 'WORKSPACE_NOT_FOUND',
  /** The user is not a member of the workspace, or the workspace has no admin to act as (the operator's CLI). `data`: `{ workspace, userId? }`. */
  MEMBER_NOT_FOUND = 'MEMBER_NOT_FOUND',
  /** The change would leave the workspace without an admin (the last admin demoted or removed). `data`: `{ userId }`. */
  LAST_ADMIN = 'LAST_ADMIN',
  /** An invitation or sign-in link is unknown (or of no workspace any more). */
  INVITATION_NOT_FOUND = 'INVITATION_NOT_FOUND',
  /** An invitation or sign-in link was already used (single use). `data`: `{ usedAt }`. */
  INVITATION_USED = 'INVITATION_USED',
  /** An invitation or sign-in link is past its 24 hours. `data`: `{ expiredAt }`. */
  INVITATION_EXPIRED = 'INVITATION_EXPIRED',
  /** Single sign-on is not configured on this gateway (OIDC_ISSUER unset). */
  SSO_NOT_CONFIGURED = 'SSO_NOT_CONFIGURED',
  /** A single sign-on callback whose state is unknown, expired (10 minutes), used, or not this browser's. */
  SSO_STATE_INVALID = 'SSO_STATE_INVALID',
  /** The provider refused the sign-in, or its answer did not verify. `data`: `{ error? }`. */
  SSO_REFUSED = 'SSO_REFUSED',
  /** The person's groups map to no role (OIDC_ROLE_MAP). `data`: `{ groups }`. */
  SSO_NO_ROLE = 'SSO_NO_ROLE',
  /** A token prefix matches more than one token of the workspace: name it by id. `data`: `{ prefix, ids }`. */
  TOKEN_AMBIGUOUS = 'TOKEN_AMBIGUOUS',
  /** No live (not deleted) agent with that id in the workspace. `data`: `{ id }`. */
  AGENT_NOT_FOUND = 'AGENT_NOT_FOUND',
  /** The agent has no such version. `data`: `{ id, version }`. */
  AGENT_VERSION_NOT_FOUND = 'AGENT_VERSION_NOT_FOUND',
  /**
   * `If-Match` named a version that is no longer the latest (a lost update
   * prevented). `data`: `{ id, expected, current }`.
   */
  AGENT_VERSION_CONFLICT = 'AGENT_VERSION_CONFLICT',
  /** Another live agent of the workspace has that name. `data`: `{ name }`. */
  AGENT_NAME_TAKEN = 'AGENT_NAME_TAKEN',
  /** No first-party template has that id (decision 0049). `data`: `{ id }`. */
  TEMPLATE_NOT_FOUND = 'TEMPLATE_NOT_FOUND',
  /** That version of the agent carries no such tag (decision 0046). `data`: `{ id, tag, version }`. */
  AGENT_TAG_NOT_FOUND = 'AGENT_TAG_NOT_FOUND',
  /**
   * An agent bundle's version spec does not hash to its `specHash` (a tampered or
   * corrupted bundle, decision 0046); nothing was imported. `data`: `{ agent, version, expected, actual }`.
   */
  BUNDLE_SPEC_HASH_MISMATCH = 'BUNDLE_SPEC_HASH_MISMATCH',
  /**
   * An agent bundle names an agent (a collaborator rule's target) that is not in
   * the bundle; nothing was imported. `data`: `{ agent, collaborator }` (bundle keys).
   */
  BUNDLE_COLLABORATOR_UNKNOWN = 'BUNDLE_COLLABORATOR_UNKNOWN',
  /**
   * An agent bundle contradicts itself (a tag or pin naming a version it does not
   * carry, two agents under one key or name); nothing was imported. `data`: `{ agent, reason }`.
   */
  BUNDLE_INCONSISTENT = 'BUNDLE_INCONSISTENT',
  /** The agent is disabled: a manual run, a retry or a backfill of it is refused. `data`: `{ id }` (the agent). */
  AGENT_DISABLED = 'AGENT_DISABLED',
  /** No run with that id in the workspace. `data`: `{ id }`. */
  RUN_NOT_FOUND = 'RUN_NOT_FOUND',
  /** A stop of a run that already ended (completed, failed, cancelled, dropped). `data`: `{ id, status }`. */
  RUN_NOT_ACTIVE = 'RUN_NOT_ACTIVE',
  /** A retry of a run that has not ended yet (queued, running, awaiting approval). `data`: `{ id, status }`. */
  RUN_NOT_FINISHED = 'RUN_NOT_FINISHED',
  /** A retry of a try run (decision 0027): try the agent again instead. `data`: `{ id }`. */
  RUN_NOT_RETRYABLE = 'RUN_NOT_RETRYABLE',
  /** An agent token tried to try an agent: only people try drafts (decision 0027). */
  TRY_BY_AGENT_REFUSED = 'TRY_BY_AGENT_REFUSED',
  /**
   * The workspace kill switch (`agentsPaused`) is on: manual runs and retries
   * are refused until it is turned off. `data`: `{ workspace }` (the slug).
   */
  AGENTS_PAUSED = 'AGENTS_PAUSED',
  /** No approval with that id in the workspace. `data`: `{ id }`. */
  APPROVAL_NOT_FOUND = 'APPROVAL_NOT_FOUND',
  /** A decision on an approval that is no longer pending (first write wins). `data`: the approval as recorded. */
  APPROVAL_ALREADY_DECIDED = 'APPROVAL_ALREADY_DECIDED',
  /** No secret with that name in the workspace. `data`: `{ name }`. */
  SECRET_NOT_FOUND = 'SECRET_NOT_FOUND',
  /** No session with that id in the workspace (no run has it). `data`: `{ id }`. */
  SESSION_NOT_FOUND = 'SESSION_NOT_FOUND',
  /** The session's runs have all ended: a message to it would never be read. `data`: `{ id }`. */
  SESSION_NOT_ACTIVE = 'SESSION_NOT_ACTIVE',
  /** No teammate with that name in the workspace. `data`: `{ name }`. */
  TEAMMATE_NOT_FOUND = 'TEAMMATE_NOT_FOUND',
  /** No teammate of the workspace has that team. `data`: `{ name }`. */
  TEAM_NOT_FOUND = 'TEAM_NOT_FOUND',
  /** A teammate (stopped ones too: names are not reused) already has that name in the workspace. `data`: `{ name }`. */
  TEAMMATE_NAME_TAKEN = 'TEAMMATE_NAME_TAKEN',
  /** The teammate is stopped: nothing would read the message. `data`: `{ name }`. */
  TEAMMATE_STOPPED = 'TEAMMATE_STOPPED',
  /**
   * `send_message` named a recipient it cannot reach (unknown, stopped, another workspace's, itself, an empty
   * team, too many, a delegated run that ended); nothing was delivered to anyone. `data`: `{ to, reason,
   * reachable }` (the teammates it can message), and `finalState` (the run's status) when `reason` is `ended`.
   */
  MESSAGE_RECIPIENT_UNREACHABLE = 'MESSAGE_RECIPIENT_UNREACHABLE',
  /**
   * A delegated run called a platform tool that a run it was delegated from may not call: a child's
   * tools are its own and its parents' in common (`parentScope`, decision 0059). `data`: `{ tool, runId }` (the parent whose scope lacks it).
   */
  TOOL_OUT_OF_SCOPE = 'TOOL_OUT_OF_SCOPE',
  /** The run has sent as many messages as one run may. `data`: `{ max }`. */
  MESSAGE_LIMIT_EXCEEDED = 'MESSAGE_LIMIT_EXCEEDED',
  /** An agent token tried to start a run of its own agent, which its spec does not allow (`allowSelfCause`). `data`: `{ id }`. */
  SELF_CAUSED = 'SELF_CAUSED',
  /** An agent token tried to start a run as deep as the causation depth cap or deeper. `data`: `{ depth, max }`. */
  CAUSATION_DEPTH_EXCEEDED = 'CAUSATION_DEPTH_EXCEEDED',
  /**
   * An `idempotencyKey` already recorded a fact with another content (kind,
   * subject, actor or payload differ): the key is not reused for it.
   * `data`: `{ idempotencyKey, id }` (the original fact's id).
   */
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  /** No task with that id in the workspace. `data`: `{ id }`. */
  TASK_NOT_FOUND = 'TASK_NOT_FOUND',
  /** A claim (or completion) of a task another owner holds: exactly one claim wins. `data`: `{ id, owner }`. */
  TASK_ALREADY_CLAIMED = 'TASK_ALREADY_CLAIMED',
  /** The task's status does not allow the action (claiming a completed task, reopening a pending one). `data`: `{ id, status }`. */
  TASK_NOT_OPEN = 'TASK_NOT_OPEN',
  /** The task has blockers not yet completed or cancelled: it cannot be claimed or completed. `data`: `{ id, openBlockers }`. */
  TASK_BLOCKED = 'TASK_BLOCKED',
  /**
   * `blockedBy` names a task that is not in the workspace, the task itself, or
   * one that depends on it (a cycle). `data`: `{ reason: 'not_found' | 'self' | 'cycle', ids }`.
   */
  TASK_BLOCKER_INVALID = 'TASK_BLOCKER_INVALID',
  /** A collaborator rule from an agent to itself. `data`: `{ id }`. */
  COLLABORATOR_SELF = 'COLLABORATOR_SELF',
  /**
   * `delegate_to_agent` was refused: the target is not the caller or an enabled
   * collaborator, or it is not found or disabled. `data`: DelegationRefusedDetails
   * (`{ reason, target, roster }`).
   */
  DELEGATION_REFUSED = 'DELEGATION_REFUSED',
  /** The per-token rate limit was hit. `data`: `{ retryAfterMs }`. */
  RATE_LIMITED = 'RATE_LIMITED',
  /** A stream ticket is unknown, used or expired. */
  STREAM_TICKET_INVALID = 'STREAM_TICKET_INVALID',
  /**
   * A fact cursor (`after`, `Last-Event-ID`) is behind the workspace's retention horizon: facts
   * after it were purged (decision 0041). Answered `410 Gone`. `data`: `{ after, oldestSeq }`
   * (CursorExpiredDetailsSchema): resume with `after = oldestSeq - 1`.
   */
  CURSOR_EXPIRED = 'CURSOR_EXPIRED',
  /** A mutating request authenticated by the UI session cookie lacks the session's `x-csrf-token` (decision 0029). */
  CSRF_TOKEN_INVALID = 'CSRF_TOKEN_INVALID',
  /** A dependency (Redis, PostgreSQL) does not answer. */
  UNAVAILABLE = 'UNAVAILABLE',
  /** An environment variable is missing or invalid at start-up. `data`: the issues. */
  CONFIG_INVALID = 'CONFIG_INVALID',
  /** A stream entry cannot be decoded; it goes to the dead-letter stream. */
  MESSAGE_INVALID = 'MESSAGE_INVALID',
  /** Notifications have no connection (or its secret is missing): nothing can be sent. `data`: `{ missing? }`. */
  NOTIFICATIONS_NOT_CONFIGURED = 'NOTIFICATIONS_NOT_CONFIGURED',
  /** Conversational crafting has no model: the gateway's CRAFT_MODEL is unset (decision 0056). */
  CRAFTING_NOT_CONFIGURED = 'CRAFTING_NOT_CONFIGURED',
  /** A crafting try named no fact and no recorded fact matches the draft's triggers (decision 0056). */
  NO_FACT_TO_REPLAY = 'NO_FACT_TO_REPLAY',
  /** A user-configured outbound URL (Mattermost server, webhook) is refused. `data`: `{ reason, host?, range? }`. */
  OUTBOUND_URL_REFUSED = 'OUTBOUND_URL_REFUSED',
  /** A Mattermost button's context or a slash command's token does not verify (forged, tampered, another workspace's). */
  INTEGRATION_SIGNATURE_INVALID = 'INTEGRATION_SIGNATURE_INVALID',
  /** A Mattermost button's signed context is past its expiry. `data`: `{ expiredAt }`. */
  INTEGRATION_CONTEXT_EXPIRED = 'INTEGRATION_CONTEXT_EXPIRED',
  /**
   * A Mattermost confirmation was clicked by (or is linked to) someone other than the Mattermost user and
   * member it was issued for: a re-targeted context (decision 0043). `data`: `{ reason: 'user' | 'member' }`.
   */
  INTEGRATION_CONTEXT_USER_MISMATCH = 'INTEGRATION_CONTEXT_USER_MISMATCH',
  /** A Mattermost confirmation was used already: a replayed context (decision 0043). */
  INTEGRATION_CONTEXT_REPLAYED = 'INTEGRATION_CONTEXT_REPLAYED',
  /** The Mattermost user is not linked to a member of the workspace (`/switchyard link <code>`). */
  INTEGRATION_USER_NOT_LINKED = 'INTEGRATION_USER_NOT_LINKED',
  /** A Mattermost link code is unknown, used or expired. */
  LINK_CODE_INVALID = 'LINK_CODE_INVALID',
  /**
   * No webhook of that name where the delivery was posted. Answered the same
   * way whether or not the workspace exists. `data`: `{ name }`.
   */
  WEBHOOK_NOT_FOUND = 'WEBHOOK_NOT_FOUND',
  /** A delivery's signature is missing, malformed or does not verify against the webhook's secret; nothing was recorded. */
  WEBHOOK_SIGNATURE_INVALID = 'WEBHOOK_SIGNATURE_INVALID',
  /** A webhook with verifier `none` while the operator does not allow unsigned webhooks (WEBHOOK_ALLOW_UNSIGNED). */
  WEBHOOK_UNSIGNED_REFUSED = 'WEBHOOK_UNSIGNED_REFUSED',
  /**
   * A verified delivery cannot become a fact: its body is not a JSON object, or its
   * kind, subject id or delivery id is missing or unusable. `data`: `{ field, reason }`.
   */
  WEBHOOK_DELIVERY_INVALID = 'WEBHOOK_DELIVERY_INVALID',
  /** A posted agent-message envelope names its own `sender`: the platform fills it from the token (decision 0047). */
  AGENT_MESSAGE_SENDER_REFUSED = 'AGENT_MESSAGE_SENDER_REFUSED',
  /** No observation with that messageId in the workspace, or its content is past retention. `data`: `{ messageId }`. */
  AGENT_MESSAGE_NOT_FOUND = 'AGENT_MESSAGE_NOT_FOUND',
  /** No schedule with that id in the workspace. `data`: `{ id }`. */
  SCHEDULE_NOT_FOUND = 'SCHEDULE_NOT_FOUND',
  /** No eval suite (or no such version of it) in the workspace (decision 0058). `data`: `{ id, version? }`. */
  EVAL_SUITE_NOT_FOUND = 'EVAL_SUITE_NOT_FOUND',
  /** No eval run with that id in the workspace. `data`: `{ id }`. */
  EVAL_NOT_FOUND = 'EVAL_NOT_FOUND',
  /** An eval's estimated cost exceeds the budget it names; nothing was started. `data`: `{ estimateUsd, budgetUsd }`. */
  EVAL_BUDGET_EXCEEDED = 'EVAL_BUDGET_EXCEEDED',
  /**
   * The agent's eval gate refuses enabling or pinning a version without a
   * passing eval run of it. `data`: `{ id, version, suite, evalId, failingCases }` (evalId null: no eval run).
   */
  EVAL_GATE = 'EVAL_GATE',
  /** A suite case has a judge but the gateway has no EVAL_JUDGE_BASE_URL; nothing was started. `data`: `{ caseIndex }`. */
  EVAL_JUDGE_NOT_CONFIGURED = 'EVAL_JUDGE_NOT_CONFIGURED',
  /**
   * An agent token asked to try, evaluate or save an agent whose latest spec
   * does not allow it (`selfImprovement`: `allow`, and the caller is the agent
   * or one of its `managers`); nothing was started or saved. `data`: `{ id }`.
   */
  SELF_IMPROVEMENT_NOT_ALLOWED = 'SELF_IMPROVEMENT_NOT_ALLOWED',
  /**
   * An agent's `save_agent` call that no person approved: the calling run has
   * no unused `platform.save_agent` approval a person approved with these arguments
   * (each approval saves at most once). Nothing was saved. `data`: `{ id }`.
   */
  SAVE_AGENT_NOT_APPROVED = 'SAVE_AGENT_NOT_APPROVED',
  /**
   * A schedule's cron expression does not parse or can never fire, or its time
   * zone is unknown to the cron library; nothing was written. `data`: `{ field, reason }`.
   */
  SCHEDULE_INVALID = 'SCHEDULE_INVALID',
  /** A backfill's range holds more matching facts than BACKFILL_MAX_RUNS; nothing was written. `data`: `{ max }`. */
  BACKFILL_TOO_LARGE = 'BACKFILL_TOO_LARGE',
  /** No backfill batch of that id for this agent in the workspace. `data`: `{ id }`. */
  BACKFILL_NOT_FOUND = 'BACKFILL_NOT_FOUND',
  /** Another schedule of the workspace has that name. `data`: `{ name }`. */
  SCHEDULE_NAME_TAKEN = 'SCHEDULE_NAME_TAKEN',
  /** The workspace holds the most schedules it may (MAX_SCHEDULES_PER_WORKSPACE). `data`: `{ limit }`. */
  SCHEDULE_LIMIT_REACHED = 'SCHEDULE_LIMIT_REACHED',
  /** Anything unexpected. The message is generic; details are in the logs. */
  INTERNAL = 'INTERNAL',
}

export const ErrorCodeSchema = z.enum(ErrorCode);

/** The error body every HTTP error carries: `{ error: { code, message, details? } }`. */
export const ErrorBodySchema = z
  .object({
    error: z
      .object({
        code: ErrorCodeSchema,
        message: z.string(),
        details: z.unknown().optional(),
      })
      .strict(),
  })
  .strict();
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The one error type of Switchyard: a stable code, a message and optional data. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly data?: unknown;

  constructor(code: ErrorCode, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
    this.name = new.target.name;
  }
}

/**
 * Thrown by a stream handler for an entry that can never succeed (it fails
 * validation, it names a workspace that does not exist): the consumer sends it
 * to the dead-letter stream at once instead of retrying it.
 */
export class NonRetriableError extends AppError {
  constructor(message: string, data?: unknown, options?: { cause?: unknown }) {
    super(ErrorCode.MESSAGE_INVALID, message, data, options);
  }
}
