import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { toKey, type Redis } from '@switchyard/redis';
import { principalOf } from './auth';

/**
 * Per-token rate limit over a fixed one-second window counted in Redis, so it
 * holds across gateway replicas. Runs after authentication.
 */
export function rateLimit(redis: Redis, prefix: string, perSecond: number): RequestHandler {
  return async (_req, res, next) => {
    const { tokenId } = principalOf(res);
    const now = Date.now();
    const window = Math.floor(now / 1000);
    const key = toKey(prefix, 'rl', tokenId, String(window));
    const [[incrError, count] = []] = (await redis.multi().incr(key).pexpire(key, 2000).exec()) ?? [];
    if (incrError) throw incrError;
    if ((count as number) > perSecond) {
      throw new AppError(ErrorCode.RATE_LIMITED, 'rate limit exceeded for this token', {
        retryAfterMs: (window + 1) * 1000 - now,
        limitPerSecond: perSecond,
      });
    }
    next();
  };
}
