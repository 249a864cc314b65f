import type { Logger } from '@switchyard/logging';
import { startShellService, type RunningShellService } from '@switchyard/runtime';
import type { ApprovalsConfig } from './config';

/** A running approvals: its health port and how to stop it. */
export type RunningApprovals = RunningShellService;

/**
 * Starts the approvals as a shell (health, metrics, clean stop); its real work
 * arrives with its own issue. Used by main.ts and by the one-process `npm start`.
 */
export function startApprovals(config: ApprovalsConfig, log: Logger): Promise<RunningApprovals> {
  return startShellService({ name: 'approvals', redisUrl: config.REDIS_URL, healthPort: config.APPROVALS_HEALTH_PORT, host: config.HOST, log });
}
