import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/** Options of createRedis. */
export interface RedisConnectionOptions {
  /** A name shown by CLIENT LIST, e.g. `event-log:consumer`. */
  connectionName?: string;
  /**
   * Retries per command while reconnecting. `null` (retry forever) is what
   * blocking readers and BullMQ workers need; request paths want a number so
   * a dead Redis fails the request instead of hanging it.
   * @defaultValue 2
   */
  maxRetriesPerRequest?: number | null;
}

/** A Redis connection from a URL with the settings Switchyard relies on. */
export function createRedis(url: string, options: RedisConnectionOptions = {}): Redis {
  const redisOptions: RedisOptions = {
    connectionName: options.connectionName,
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 2 : options.maxRetriesPerRequest,
    enableAutoPipelining: true,
    // Reconnect with a capped backoff; commands queue meanwhile (bounded by maxRetriesPerRequest).
    retryStrategy: (times) => Math.min(times * 100, 2000),
  };
  return new Redis(url, redisOptions);
}

/**
 * Closes a connection without throwing: QUIT when it is up (pending replies
 * are delivered), otherwise a plain disconnect.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    if (redis.status === 'ready') await redis.quit();
    else redis.disconnect();
  } catch {
    redis.disconnect();
  }
}
