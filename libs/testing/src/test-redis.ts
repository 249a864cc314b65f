import { randomUUID } from 'node:crypto';
import { createRedis, closeRedis, type Redis } from '@switchyard/redis';
import { redisUrl } from './infra';

/** A Redis connection and a key prefix of one test's own. */
export interface TestRedis {
  redis: Redis;
  /** Unique prefix, a hash tag (`{t…}`) like the installation's: pass it as REDIS_PREFIX so the code under test writes only there. */
  prefix: string;
  url: string;
  /** Deletes every key under the prefix and closes the connection. */
  cleanup(): Promise<void>;
}

/**
 * Why this exists: test files share one Redis and run in parallel; a unique
 * key prefix per test keeps their streams, groups and queues apart, and the
 * cleanup removes them through the same prefix.
 */
export async function createTestRedis(): Promise<TestRedis> {
  const prefix = `{t${randomUUID().replace(/-/g, '').slice(0, 12)}}`;
  const url = redisUrl();
  const redis = createRedis(url, { connectionName: 'test' });
  return {
    redis,
    prefix,
    url,
    cleanup: async () => {
      await deleteKeys(redis, `${prefix}:*`);
      await closeRedis(redis);
    },
  };
}

/** Deletes every key matching `pattern` (SCAN, never KEYS). */
export async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
