import { MODEL_ERROR_CODES } from '@switchyard/contracts';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ModelError } from './model';
import { retryAfterFromHeaders, type RetryDecision } from './retry';

/** Longest provider text kept in an error message. */
const MAX_DETAIL_CHARS = 500;

/** A failed attempt, classified: the error to report if it is the last, and whether to try again. */
export class AttemptFailure {
  constructor(
    readonly error: ModelError,
    readonly retry: RetryDecision,
  ) {}
}

/** What classifyOpenAiError needs to know besides the error. */
export interface AttemptContext {
  /** Replaced by `[redacted]` wherever it appears in the message. */
  apiKey: string;
  /** The caller's signal: aborted means the caller gave up, not a failure. */
  signal: AbortSignal;
  /** Whether this attempt's own timeout fired. */
  timedOut: boolean;
  timeoutMs: number;
}

/**
 * Maps what the `openai` client threw to a ModelError code and a retry
 * decision. Retried: 429, 408, 409 (OpenAI's lock timeout), 5xx and connection
 * errors, unless the server says `x-should-retry: false`. Not retried:
 * timeouts (the provider may still be generating, and billing, the first
 * call), auth and request errors.
 */
export function classifyOpenAiError(error: unknown, context: AttemptContext): AttemptFailure {
  const final = (code: ModelError['code'], message: string, status?: number) => new AttemptFailure(new ModelError(code, redact(message, context.apiKey), { status }), { retry: false });
  if (context.signal.aborted) return new AttemptFailure(new ModelError(MODEL_ERROR_CODES.aborted, 'the model call was aborted', { cause: context.signal.reason }), { retry: false });
  if (context.timedOut || error instanceof APIConnectionTimeoutError) return final(MODEL_ERROR_CODES.timeout, `no answer from the model within ${context.timeoutMs} ms`);
  // Our own timeout reaches the client as its caller's abort.
  if (error instanceof APIUserAbortError) return final(MODEL_ERROR_CODES.timeout, `no answer from the model within ${context.timeoutMs} ms`);
  if (error instanceof APIConnectionError) return retryable(MODEL_ERROR_CODES.unavailable, `cannot reach the model endpoint: ${detail(error.message, context.apiKey)}`, undefined, context.apiKey);
  if (error instanceof APIError && typeof error.status === 'number') return classifyStatus(error, error.status, context.apiKey);
  if (error instanceof SyntaxError) return final(MODEL_ERROR_CODES.invalidResponse, `the model endpoint answered with unreadable JSON: ${detail(error.message, context.apiKey)}`);
  // Anything else happened while reading the answer (a connection cut mid-body): a connection error.
  return retryable(MODEL_ERROR_CODES.unavailable, `the model call failed: ${detail(error instanceof Error ? error.message : String(error), context.apiKey)}`, undefined, context.apiKey);
}

function classifyStatus(error: APIError, status: number, apiKey: string): AttemptFailure {
  const headers = error.headers;
  const shouldRetry = headers?.get('x-should-retry');
  // Auth errors carry no provider text: OpenAI's 401 quotes (a masked form of) the key.
  if (status === 401 || status === 403) return new AttemptFailure(new ModelError(MODEL_ERROR_CODES.authFailed, `the model endpoint refused the credentials (${status})`, { status }), { retry: false });
  const code = status === 429 ? MODEL_ERROR_CODES.rateLimited : status >= 500 || status === 408 || status === 409 ? MODEL_ERROR_CODES.unavailable : MODEL_ERROR_CODES.badRequest;
  const message = `the model endpoint answered ${status}: ${detail(error.message.replace(/^\d{3} /, ''), apiKey)}`;
  const wantsRetry = shouldRetry === 'true' || (shouldRetry !== 'false' && code !== MODEL_ERROR_CODES.badRequest);
  if (!wantsRetry) return new AttemptFailure(new ModelError(code, redact(message, apiKey), { status }), { retry: false });
  return retryable(code, message, status, apiKey, retryAfterFromHeaders(headers));
}

function retryable(code: ModelError['code'], message: string, status: number | undefined, apiKey: string, retryAfterMs?: number): AttemptFailure {
  return new AttemptFailure(new ModelError(code, redact(message, apiKey), { status }), retryAfterMs === undefined ? { retry: true } : { retry: true, retryAfterMs });
}

/** Provider text for a message: redacted first, so a cut cannot leave part of the key. */
function detail(raw: string, apiKey: string): string {
  const text = redact(raw, apiKey);
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/** `text` with every occurrence of the key (and its JSON-escaped form) replaced. */
export function redact(text: string, apiKey: string): string {
  if (!apiKey) return text;
  let result = text;
  for (const needle of new Set([apiKey, JSON.stringify(apiKey).slice(1, -1)])) result = result.split(needle).join('[redacted]');
  return result;
}
