import type { Logger } from '@switchyard/logging';
import { startShellService, type RunningShellService } from '@switchyard/runtime';
import type { RunnerConfig } from './config';

/** A running runner: its health port and how to stop it. */
export type RunningRunner = RunningShellService;

/**
 * Starts the runner as a shell (health, metrics, clean stop); its real work
 * arrives with its own issue. Used by main.ts and by the one-process `npm start`.
 */
export function startRunner(config: RunnerConfig, log: Logger): Promise<RunningRunner> {
  return startShellService({ name: 'runner', redisUrl: config.REDIS_URL, healthPort: config.RUNNER_HEALTH_PORT, host: config.HOST, log });
}
