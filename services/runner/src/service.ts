import type { Logger } from '@switchyard/logging';
import { closeRedis, createRedis, once } from '@switchyard/redis';
import { closeAll, startHealthServer, type Closable } from '@switchyard/runtime';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { RunnerConfig } from './config';

/** A running runner: its health port and how to stop it. */
export interface RunningRunner extends Closable {
  healthPort: number;
}

/**
 * Starts the runner shell: checks Redis answers and serves health and
 * metrics. It takes no jobs yet; running agents arrives with its own issue.
 * Used by main.ts and by the one-process `npm start`.
 */
export async function startRunner(config: RunnerConfig, log: Logger): Promise<RunningRunner> {
  const redis = createRedis(config.REDIS_URL, { connectionName: 'runner' });
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
    port: config.RUNNER_HEALTH_PORT,
    host: config.HOST,
    registry,
    checks: { redis: async () => void (await redis.ping()) },
  });
  log.info({ healthPort: health.port }, 'runner started (shell: no work yet)');
  return {
    healthPort: health.port,
    close: once(() => closeAll([health, () => closeRedis(redis)])),
  };
}
