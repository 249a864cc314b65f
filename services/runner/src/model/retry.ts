import { MODEL_ERROR_CODES } from '@switchyard/contracts';
import { ModelError } from './model';

/** How model calls are retried. The `openai` client's own retries are off: this is the one retry layer. */
export interface RetryOptions {
  /** Attempts in all, the first included. @defaultValue 4 */
  maxAttempts: number;
  /** Backoff before the second attempt; doubles per attempt. @defaultValue 500 */
  baseDelayMs: number;
  /** Longest computed backoff. @defaultValue 8000 */
  maxDelayMs: number;
  /** Longest wait a `retry-after` header can ask for; a longer one is cut to this. @defaultValue 30000 */
  retryAfterCapMs: number;
  /** Jitter source in [0, 1). @defaultValue Math.random */
  random: () => number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  retryAfterCapMs: 30_000,
  random: Math.random,
};

/** What to do after a failed attempt. */
export type RetryDecision = { retry: false } | { retry: true; retryAfterMs?: number; free?: boolean };

/**
 * Runs `attempt` until it succeeds, `decide` says the failure is final, or
 * `maxAttempts` ran; then rethrows the last failure. A `free` retry (a 429 the
 * shared rate-limit bucket took over, decision 0060) counts no attempt. Between attempts it waits
 * the server's `retry-after` (capped) or an exponential backoff with jitter.
 * The wait ends early when `signal` aborts, and the call then rejects with
 * `model_aborted`.
 */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  decide: (error: unknown) => RetryDecision,
  options: RetryOptions,
  signal: AbortSignal,
): Promise<T> {
  for (let n = 1; ; n++) {
    throwIfAborted(signal);
    try {
      return await attempt(n);
    } catch (error) {
      const decision = decide(error);
      if (decision.retry && decision.free) {
        n--;
        continue;
      }
      if (!decision.retry || n >= options.maxAttempts) throw error;
      await sleep(retryDelayMs(n, decision.retryAfterMs, options), signal);
    }
  }
}

/**
 * The wait after failed attempt `n` (1-based). A server-given wait is honoured
 * as is (up to the cap): the server knows when capacity returns. Otherwise
 * `base·2^(n-1)` up to `maxDelayMs`, of which the upper half is random
 * ("equal jitter"), so retries of many runs spread out without ever retrying
 * immediately.
 */
export function retryDelayMs(n: number, retryAfterMs: number | undefined, options: RetryOptions): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 0), options.retryAfterCapMs);
  const exponential = Math.min(options.baseDelayMs * 2 ** (n - 1), options.maxDelayMs);
  return exponential / 2 + (options.random() * exponential) / 2;
}

/**
 * The wait a response asks for: `retry-after-ms` (milliseconds, OpenAI's) or
 * else `retry-after` (seconds, or an HTTP date). Undefined when absent or unreadable.
 */
export function retryAfterFromHeaders(headers: Pick<Headers, 'get'> | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(date - now, 0);
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ModelError(MODEL_ERROR_CODES.aborted, 'the model call was aborted', { cause: signal.reason });
}

/** Waits `ms`; rejects with `model_aborted` as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(new ModelError(MODEL_ERROR_CODES.aborted, 'the model call was aborted', { cause: signal.reason }));
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
