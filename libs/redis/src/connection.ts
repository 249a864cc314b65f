import { Cluster, Redis as SingleRedis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { RedisTargetSchema } from '@switchyard/contracts';

/**
 * A connection to Switchyard's Redis: one server, or a Redis Cluster
 * (decision 0061). Both answer the same commands; every key carries the
 * prefix's hash tag, so a multi-key command or script lands on one node.
 */
export type Redis = SingleRedis | Cluster;

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
  /**
   * Queue commands while disconnected. Off, a command fails at once when Redis
   * is down (the gateway's readiness probe wants that).
   * @defaultValue true
   */
  enableOfflineQueue?: boolean;
  /**
   * Coalesce the commands of one tick into one write (ioredis auto-pipelining). Off for a
   * connection BullMQ is given: it sends one command at a time, and each auto-pipeline is an
   * ioredis Pipeline, whose constructor copies every script defined on the connection —
   * BullMQ's fifty — so that a job cost a copy per command (docs/perf/wake-ups.md).
   * @defaultValue true
   */
  autoPipelining?: boolean;
}

function nodeOptions(options: RedisConnectionOptions): RedisOptions {
  return {
    connectionName: options.connectionName,
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 2 : options.maxRetriesPerRequest,
    ...(options.enableOfflineQueue === undefined ? {} : { enableOfflineQueue: options.enableOfflineQueue }),
    // Reconnect with a capped backoff; commands queue meanwhile (bounded by maxRetriesPerRequest).
    retryStrategy: (times) => Math.min(times * 100, 2000),
  };
}

/**
 * A connection from `REDIS_URL` with the settings Switchyard relies on:
 * `redis://…` makes an ioredis `Redis`, `redis-cluster://host:port,…` an
 * ioredis `Cluster` (masters only: a read from a replica could miss an
 * acknowledged write).
 */
export function createRedis(url: string, options: RedisConnectionOptions = {}): Redis {
  const target = RedisTargetSchema.parse(url);
  const enableAutoPipelining = options.autoPipelining ?? true;
  if (target.kind === 'single') return new SingleRedis(url, { ...nodeOptions(options), enableAutoPipelining });
  const clusterOptions: ClusterOptions = {
    enableAutoPipelining,
    ...(options.enableOfflineQueue === undefined ? {} : { enableOfflineQueue: options.enableOfflineQueue }),
    scaleReads: 'master',
    // While a master is down or failing over, keep retrying instead of failing commands at once.
    clusterRetryStrategy: (times) => Math.min(times * 100, 2000),
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    redisOptions: {
      ...nodeOptions(options),
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
  };
  return new Cluster(target.nodes, clusterOptions);
}

/**
 * A second connection like `redis` with other options, for a blocking read
 * (`XREADGROUP BLOCK` holds its connection) — `duplicate` takes different
 * arguments on a Cluster than on a single server.
 */
export function duplicateRedis(redis: Redis, options: RedisConnectionOptions): Redis {
  // Only what the caller names changes; the rest is the original's.
  const { autoPipelining, ...rest } = options;
  const changed: RedisOptions = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const pipelining = autoPipelining === undefined ? {} : { enableAutoPipelining: autoPipelining };
  if (redis instanceof Cluster) {
    const offline = options.enableOfflineQueue === undefined ? {} : { enableOfflineQueue: options.enableOfflineQueue };
    return redis.duplicate(undefined, { ...offline, ...pipelining, redisOptions: { ...redis.options.redisOptions, ...changed } });
  }
  return redis.duplicate({ ...changed, ...pipelining });
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
