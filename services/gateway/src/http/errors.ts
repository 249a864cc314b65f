import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, ErrorCode, type ErrorBody } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { bodyParserError } from './json-body';
import { isStoreUnavailable } from '@switchyard/core';

/** The one place an AppError becomes an HTTP status. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.VALIDATION_FAILED:
    case ErrorCode.TASK_BLOCKER_INVALID:
    case ErrorCode.COLLABORATOR_SELF:
    case ErrorCode.BUNDLE_SPEC_HASH_MISMATCH:
    case ErrorCode.BUNDLE_COLLABORATOR_UNKNOWN:
    case ErrorCode.BUNDLE_INCONSISTENT:
    case ErrorCode.MALFORMED_JSON:
    case ErrorCode.BODY_ENCODING_INVALID:
    case ErrorCode.JSON_TOO_DEEP:
    case ErrorCode.OUTBOUND_URL_REFUSED:
    case ErrorCode.LINK_CODE_INVALID:
    case ErrorCode.SSO_STATE_INVALID:
    case ErrorCode.WEBHOOK_DELIVERY_INVALID:
    case ErrorCode.AGENT_MESSAGE_SENDER_REFUSED:
    case ErrorCode.SCHEDULE_INVALID:
    case ErrorCode.BACKFILL_TOO_LARGE:
    case ErrorCode.EVAL_BUDGET_EXCEEDED:
      return 400;
    case ErrorCode.UNAUTHENTICATED:
    case ErrorCode.STREAM_TICKET_INVALID:
    case ErrorCode.INTEGRATION_SIGNATURE_INVALID:
    case ErrorCode.WEBHOOK_SIGNATURE_INVALID:
    case ErrorCode.SSO_REFUSED:
      return 401;
    case ErrorCode.FORBIDDEN:
    case ErrorCode.TOOL_OUT_OF_SCOPE:
    case ErrorCode.WORKSPACE_FORBIDDEN:
    case ErrorCode.CSRF_TOKEN_INVALID:
    case ErrorCode.TRY_BY_AGENT_REFUSED:
    case ErrorCode.SELF_IMPROVEMENT_NOT_ALLOWED:
    case ErrorCode.SAVE_AGENT_NOT_APPROVED:
    case ErrorCode.DELEGATION_REFUSED:
    case ErrorCode.INTEGRATION_CONTEXT_EXPIRED:
    case ErrorCode.INTEGRATION_USER_NOT_LINKED:
    case ErrorCode.INTEGRATION_CONTEXT_USER_MISMATCH:
    case ErrorCode.WEBHOOK_UNSIGNED_REFUSED:
    case ErrorCode.SSO_NO_ROLE:
      return 403;
    case ErrorCode.ROUTE_NOT_FOUND:
    case ErrorCode.EVENT_NOT_FOUND:
    case ErrorCode.TOKEN_NOT_FOUND:
    case ErrorCode.WORKSPACE_NOT_FOUND:
    case ErrorCode.MEMBER_NOT_FOUND:
    case ErrorCode.INVITATION_NOT_FOUND:
    case ErrorCode.SSO_NOT_CONFIGURED:
    case ErrorCode.AGENT_NOT_FOUND:
    case ErrorCode.BACKFILL_NOT_FOUND:
    case ErrorCode.AGENT_VERSION_NOT_FOUND:
    case ErrorCode.AGENT_TAG_NOT_FOUND:
    case ErrorCode.TEMPLATE_NOT_FOUND:
    case ErrorCode.RUN_NOT_FOUND:
    case ErrorCode.SECRET_NOT_FOUND:
    case ErrorCode.SESSION_NOT_FOUND:
    case ErrorCode.APPROVAL_NOT_FOUND:
    case ErrorCode.TASK_NOT_FOUND:
    case ErrorCode.TEAMMATE_NOT_FOUND:
    case ErrorCode.TEAM_NOT_FOUND:
    case ErrorCode.MESSAGE_RECIPIENT_UNREACHABLE:
    case ErrorCode.WEBHOOK_NOT_FOUND:
    case ErrorCode.AGENT_MESSAGE_NOT_FOUND:
    case ErrorCode.SCHEDULE_NOT_FOUND:
    case ErrorCode.EVAL_SUITE_NOT_FOUND:
    case ErrorCode.EVAL_NOT_FOUND:
      return 404;
    case ErrorCode.METHOD_NOT_ALLOWED:
      return 405;
    case ErrorCode.CURSOR_EXPIRED:
      return 410;
    case ErrorCode.WORKSPACE_EXISTS:
    case ErrorCode.TOKEN_AMBIGUOUS:
    case ErrorCode.LAST_ADMIN:
    case ErrorCode.INVITATION_USED:
    case ErrorCode.IDEMPOTENCY_KEY_REUSED:
    case ErrorCode.AGENT_VERSION_CONFLICT:
    case ErrorCode.AGENT_NAME_TAKEN:
    case ErrorCode.SCHEDULE_NAME_TAKEN:
    case ErrorCode.SCHEDULE_LIMIT_REACHED:
    case ErrorCode.AGENT_DISABLED:
    case ErrorCode.AGENTS_PAUSED:
    case ErrorCode.EVAL_GATE:
    case ErrorCode.EVAL_JUDGE_NOT_CONFIGURED:
    case ErrorCode.RUN_NOT_ACTIVE:
    case ErrorCode.RUN_NOT_FINISHED:
    case ErrorCode.RUN_NOT_RETRYABLE:
    case ErrorCode.SESSION_NOT_ACTIVE:
    case ErrorCode.SELF_CAUSED:
    case ErrorCode.CAUSATION_DEPTH_EXCEEDED:
    case ErrorCode.APPROVAL_ALREADY_DECIDED:
    case ErrorCode.TASK_ALREADY_CLAIMED:
    case ErrorCode.TASK_NOT_OPEN:
    case ErrorCode.TASK_BLOCKED:
    case ErrorCode.NOTIFICATIONS_NOT_CONFIGURED:
    case ErrorCode.CRAFTING_NOT_CONFIGURED:
    case ErrorCode.NO_FACT_TO_REPLAY:
    case ErrorCode.TEAMMATE_NAME_TAKEN:
    case ErrorCode.TEAMMATE_STOPPED:
    case ErrorCode.INTEGRATION_CONTEXT_REPLAYED:
      return 409;
    case ErrorCode.INVITATION_EXPIRED:
      return 410;
    case ErrorCode.PAYLOAD_TOO_LARGE:
      return 413;
    case ErrorCode.UNSUPPORTED_MEDIA_TYPE:
      return 415;
    case ErrorCode.RATE_LIMITED:
    case ErrorCode.MESSAGE_LIMIT_EXCEEDED:
      return 429;
    case ErrorCode.UNAVAILABLE:
      return 503;
    case ErrorCode.CONFIG_INVALID:
    case ErrorCode.MESSAGE_INVALID:
    case ErrorCode.INTERNAL:
      return 500;
  }
}

/** The `Retry-After` of a 503 that names none. */
const UNAVAILABLE_RETRY_AFTER_MS = 1000;

/**
 * Any error as the AppError it is answered with: body-parser's refusals,
 * a path that is not valid percent-encoding (the router's URIError), a store
 * that does not answer (503), and anything else as INTERNAL.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const parsed = bodyParserError(error, undefined);
  if (parsed instanceof AppError) return parsed;
  if (error instanceof URIError && (error as { status?: number }).status === 400) {
    return new AppError(ErrorCode.VALIDATION_FAILED, 'path is not valid percent-encoding', [
      { code: 'invalid_path', path: ['path'], message: 'malformed percent-encoding in the path' },
    ]);
  }
  if (isStoreUnavailable(error)) {
    return new AppError(ErrorCode.UNAVAILABLE, 'a store is unavailable: try again', { retryAfterMs: UNAVAILABLE_RETRY_AFTER_MS }, { cause: error });
  }
  return new AppError(ErrorCode.INTERNAL, 'internal error');
}

/** Express error middleware: every error leaves as `{error: {code, message, details?}}`. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = toAppError(error);
    const status = statusOf(appError.code);
    if (status >= 500) log.error({ err: error, method: req.method, path: req.path }, 'request failed');
    // A stream that already started cannot carry a status any more.
    if (res.headersSent) {
      res.end();
      return;
    }
    if (appError.code === ErrorCode.RATE_LIMITED || appError.code === ErrorCode.UNAVAILABLE) {
      const retryAfterMs = (appError.data as { retryAfterMs?: number } | undefined)?.retryAfterMs ?? UNAVAILABLE_RETRY_AFTER_MS;
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    }
    const body: ErrorBody = { error: { code: appError.code, message: appError.message } };
    if (appError.data !== undefined && status < 500) body.error.details = appError.data;
    res.status(status).json(body);
  };
}

/** The 404 for any path no route took. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError(ErrorCode.ROUTE_NOT_FOUND, `no route for ${req.method} ${req.path}`));
};
