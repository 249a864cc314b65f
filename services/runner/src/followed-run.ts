import type { RunContext } from './ports';

/**
 * Whether someone follows the run live (decision 0056): a crafting turn's
 * answer streams the turn's transcript and ending as the runner announces
 * them (run news), so the runner announces a run's flushes and ending only
 * when this holds — nothing listens to any other run's channel.
 */
export function isFollowedRun(context: Pick<RunContext, 'origin'>): boolean {
  return context.origin.type === 'craft';
}
