import type { Logger } from '@switchyard/logging';
import { closeRedis, createRedis, once } from '@switchyard/redis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { startHealthServer } from './health-server';
import { closeAll, type Closable } from './lifecycle';

/** A running shell service: its health port and how to stop it. */
export interface RunningShellService extends Closable {
  healthPort: number;
}

/** Options of startShellService. */
export interface ShellServiceOptions {
  /** The service's name, for logs and the Redis connection name. */
  name: string;
  redisUrl: string;
  healthPort: number;
  host: string;
  log: Logger;
}

/**
 * A service whose real work has not been built yet (matcher, runner,
 * approvals, notifier until their issues land): it checks Redis answers —
 * failing start-up, not a later request, when it does not — serves health and
 * metrics, and stops cleanly.
 */
export async function startShellService(options: ShellServiceOptions): Promise<RunningShellService> {
  const { name, log } = options;
  const redis = createRedis(options.redisUrl, { connectionName: name });
  // ioredis reconnects by itself; log each failure as JSON instead of its raw console output.
  redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
  try {
    await redis.ping();
  } catch (error) {
    await closeRedis(redis);
    throw error;
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const health = await startHealthServer({
    port: options.healthPort,
    host: options.host,
    registry,
    checks: { redis: async () => void (await redis.ping()) },
  });
  log.info({ healthPort: health.port }, `${name} started (shell: no work yet)`);
  return { healthPort: health.port, close: once(() => closeAll([health, () => closeRedis(redis)])) };
}
