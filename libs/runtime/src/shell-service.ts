import type { Logger } from '@switchyard/logging';
import { closeRedis, createRedis } from '@switchyard/redis';
import { startService, type RunningService } from './start-service';

/** A running shell service: its health port and how to stop it. */
export type RunningShellService = RunningService;

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
 * A service whose real work has not been built yet (approvals, notifier until
 * their issues land), on the shape every service follows: it checks Redis
 * answers — failing start-up, not a later request, when it does not — serves
 * health and metrics, and stops cleanly.
 */
export function startShellService(options: ShellServiceOptions): Promise<RunningShellService> {
  const { name, log } = options;
  return startService({ name, healthPort: options.healthPort, host: options.host, log, startedMessage: `${name} started (shell: no work yet)` }, async (service) => {
    const redis = createRedis(options.redisUrl, { connectionName: name });
    service.onClose(() => closeRedis(redis));
    // ioredis reconnects by itself; log each failure as JSON instead of its raw console output.
    redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
    await redis.ping();
    service.check({ redis: async () => void (await redis.ping()) });
    return {};
  });
}
