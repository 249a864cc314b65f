import type { Logger } from '@switchyard/logging';
import { startShellService, type RunningShellService } from '@switchyard/runtime';
import type { NotifierConfig } from './config';

/** A running notifier: its health port and how to stop it. */
export type RunningNotifier = RunningShellService;

/**
 * Starts the notifier as a shell (health, metrics, clean stop); its real work
 * arrives with its own issue. Used by main.ts and by the one-process `npm start`.
 */
export function startNotifier(config: NotifierConfig, log: Logger): Promise<RunningNotifier> {
  return startShellService({ name: 'notifier', redisUrl: config.REDIS_URL, healthPort: config.NOTIFIER_HEALTH_PORT, host: config.HOST, log });
}
