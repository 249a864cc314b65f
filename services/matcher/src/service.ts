import type { Logger } from '@switchyard/logging';
import { startShellService, type RunningShellService } from '@switchyard/runtime';
import type { MatcherConfig } from './config';

/** A running matcher: its health port and how to stop it. */
export type RunningMatcher = RunningShellService;

/**
 * Starts the matcher as a shell (health, metrics, clean stop); its real work
 * arrives with its own issue. Used by main.ts and by the one-process `npm start`.
 */
export function startMatcher(config: MatcherConfig, log: Logger): Promise<RunningMatcher> {
  return startShellService({ name: 'matcher', redisUrl: config.REDIS_URL, healthPort: config.MATCHER_HEALTH_PORT, host: config.HOST, log });
}
