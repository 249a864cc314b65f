import type { Logger } from '@switchyard/logging';
import { closeRedis, createRedis, once } from '@switchyard/redis';
import { closeAll, startHealthServer, type Closable } from '@switchyard/runtime';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ApprovalsConfig } from './config';

/** A running approvals service: its health port and how to stop it. */
export interface RunningApprovals extends Closable {
  healthPort: number;
}

/**
 * Starts the approvals shell: checks Redis answers and serves health and
 * metrics. It consumes nothing yet; approval bookkeeping arrives with its own issue.
 * Used by main.ts and by the one-process `npm start`.
 */
export async function startApprovals(config: ApprovalsConfig, log: Logger): Promise<RunningApprovals> {
  const redis = createRedis(config.REDIS_URL, { connectionName: 'approvals' });
  // ioredis reconnects by itself; log each failure as JSON instead of its raw console output.
  redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
  try {
    // Fail start-up, not the first request, when Redis is unreachable.
    await redis.ping();
  } catch (error) {
    await closeRedis(redis);
    throw error;
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const health = await startHealthServer({
    port: config.APPROVALS_HEALTH_PORT,
    host: config.HOST,
    registry,
    checks: { redis: async () => void (await redis.ping()) },
  });
  log.info({ healthPort: health.port }, 'approvals started (shell: no work yet)');
  return {
    healthPort: health.port,
    close: once(() => closeAll([health, () => closeRedis(redis)])),
  };
}
