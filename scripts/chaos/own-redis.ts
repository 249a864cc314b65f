import { RedisServer } from '@switchyard/testing';

export { freePort } from '@switchyard/testing';

/**
 * The harness's redis-server (RedisServer of libs/testing), with every write
 * fsynced to its append-only file before it is acknowledged: a SIGKILL and
 * restart then lose nothing acknowledged, so whatever the checks find missing
 * was lost by the platform, not by Redis.
 */
export type OwnRedis = RedisServer;
export const OwnRedis = { start: (): Promise<RedisServer> => RedisServer.start({ durable: true }) };
