import { RedisCluster, RedisServer } from '@switchyard/testing';

export { freePort } from '@switchyard/testing';

/** The key prefix of the platform the harness starts: a hash tag, as a Redis Cluster needs. */
export const PREFIX = '{chaos}';

/**
 * The harness's Redis: a redis-server (RedisServer of libs/testing) or a
 * three-master Redis Cluster (RedisCluster), each with every write fsynced
 * to its append-only file before it is acknowledged: a SIGKILL and restart
 * then lose nothing acknowledged, so whatever the checks find missing was
 * lost by the platform, not by Redis.
 */
export type OwnRedis = Pick<RedisServer, 'url' | 'restart' | 'stop'>;
export const OwnRedis = {
  start: (kind: 'single' | 'cluster' = 'single'): Promise<OwnRedis> =>
    kind === 'cluster' ? RedisCluster.start({ durable: true, busyKey: PREFIX }) : RedisServer.start({ durable: true }),
};
