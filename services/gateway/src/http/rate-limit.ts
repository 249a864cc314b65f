import type { Request, RequestHandler } from 'express';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { toKey, type Redis } from '@switchyard/redis';
import { principalOf } from './auth';

/** Options of TokenRateLimiter. */
export interface TokenRateLimiterOptions {
  redis: Redis;
  prefix: string;
  /** Requests allowed per token per one-second window. */
  perSecond: number;
  /** How often local counts are added to the shared count in Redis. @defaultValue 100 */
  syncMs?: number;
}

interface Window {
  second: number;
  /** Requests counted here and not yet added to Redis. */
  unsynced: number;
  /** Requests counted here whose INCRBY is in flight: counted until its reply is in `shared`. */
  sending: number;
  /** The shared count (all replicas) as of the last sync, including what this replica sent. */
  shared: number;
}

/**
 * Per-token rate limit over fixed one-second windows, shared by every gateway
 * replica through Redis, without a Redis round trip per request: each replica
 * counts locally and adds its counts to the window's key every `syncMs` in one
 * pipeline (INCRBY), learning the others' counts in the reply. A request is
 * refused when the shared count last seen plus what is not yet sent reaches
 * the limit. Across replicas the limit can be exceeded by what they admit in
 * one sync interval; a single replica never exceeds it.
 */
export class TokenRateLimiter {
  private readonly windows = new Map<string, Window>();
  /** The next sync, armed while counts wait to be sent: an idle gateway is not woken for them. */
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly options: TokenRateLimiterOptions) {}

  /** Counts a request; returns how long to wait when it is over the limit, else 0. */
  take(tokenId: string, now = Date.now()): number {
    const second = Math.floor(now / 1000);
    let window = this.windows.get(tokenId);
    if (!window || window.second !== second) {
      window = { second, unsynced: 0, sending: 0, shared: 0 };
      this.windows.set(tokenId, window);
    }
    if (window.shared + window.sending + window.unsynced >= this.options.perSecond) return (second + 1) * 1000 - now;
    window.unsynced += 1;
    this.schedule();
    return 0;
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.syncing = this.sync().finally(() => {
        // Counts a failed send kept, or counted during the send, go with the next one.
        if ([...this.windows.values()].some((window) => window.unsynced > 0)) this.schedule();
      });
    }, this.options.syncMs ?? 100);
    this.timer.unref();
  }

  /** Adds local counts to Redis and reads back the shared totals. */
  async sync(): Promise<void> {
    const current = Math.floor(Date.now() / 1000);
    const batch: Array<[string, Window, number]> = [];
    for (const [tokenId, window] of this.windows) {
      if (window.second < current - 1) this.windows.delete(tokenId);
      else if (window.unsynced > 0) batch.push([tokenId, window, window.unsynced]);
    }
    if (batch.length === 0) return;
    const pipeline = this.options.redis.pipeline();
    for (const [tokenId, window, delta] of batch) {
      const key = toKey(this.options.prefix, 'rl', tokenId, String(window.second));
      pipeline.incrby(key, delta).pexpire(key, 2000);
      window.unsynced -= delta;
      window.sending += delta;
    }
    try {
      const results = (await pipeline.exec()) ?? [];
      batch.forEach(([, window, delta], index) => {
        const [error, total] = results[index * 2] ?? [];
        window.sending -= delta;
        if (error) window.unsynced += delta;
        else window.shared = Math.max(window.shared, Number(total));
      });
    } catch {
      // Redis unreachable: keep limiting on local counts; they are re-sent next time.
      for (const [, window, delta] of batch) {
        window.sending -= delta;
        window.unsynced += delta;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.syncing;
  }
}

/**
 * Express middleware over a TokenRateLimiter, counting per token (after
 * authentication) or per what `keyOf` names (a door without a token: a
 * webhook); a key must hold no `:`.
 */
export function rateLimit(limiter: TokenRateLimiter, perSecond: number, keyOf?: { key: (req: Request) => string; what: string }): RequestHandler {
  return (req, res, next) => {
    const retryAfterMs = limiter.take(keyOf ? keyOf.key(req) : principalOf(res).tokenId);
    if (retryAfterMs > 0) {
      throw new AppError(ErrorCode.RATE_LIMITED, `rate limit exceeded for this ${keyOf?.what ?? 'token'}`, { retryAfterMs, limitPerSecond: perSecond });
    }
    next();
  };
}
