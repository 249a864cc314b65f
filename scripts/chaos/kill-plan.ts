/** Everything the harness can kill, in the default order. */
export const KILL_TARGETS = ['gateway', 'event-log:0', 'event-log:1', 'matcher:0', 'matcher:1', 'runner:0', 'runner:1', 'redis', 'postgres'] as const;
export type KillTarget = (typeof KILL_TARGETS)[number];

/** One planned kill: what, and how long after the load started. */
export interface PlannedKill {
  target: KillTarget;
  atMs: number;
}

/**
 * Spreads the kills evenly over the middle of the load (from 10 % to 80 % of
 * it), so that each lands under load and the platform has load left to show
 * it recovered before the load ends.
 */
export function planKills(targets: readonly KillTarget[], durationMs: number): PlannedKill[] {
  if (targets.length === 0) return [];
  const from = durationMs * 0.1;
  const span = durationMs * 0.7;
  const step = targets.length === 1 ? 0 : span / (targets.length - 1);
  return targets.map((target, i) => ({ target, atMs: Math.round(from + i * step) }));
}
