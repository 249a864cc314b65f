import type { PlannedKill } from './kill-plan';
import type { Mesh, ServiceSlot } from './mesh';
import type { OwnRedis } from './own-redis';
import { terminateBackends } from './own-database';

/** A kill as it happened. `at` is when the signal was sent (or the backends terminated). */
export interface KillRecord {
  target: PlannedKill['target'];
  at: number;
  /** When the target answered again (restarted and ready); undefined when it was skipped. */
  backAt?: number;
  /** What happened besides: the backends terminated, or why it was skipped. */
  note?: string;
  ok: boolean;
}

/** What the kills act on. */
export interface KillDeps {
  mesh: Mesh;
  redis: OwnRedis;
  databaseUrl: string;
}

/** Runs one kill now and returns its record. */
export async function killOne(deps: KillDeps, target: PlannedKill['target']): Promise<KillRecord> {
  const at = Date.now();
  try {
    if (target === 'redis') {
      await deps.redis.restart();
      return { target, at, backAt: Date.now(), ok: true };
    }
    if (target === 'postgres') {
      const outcome = await terminateBackends(deps.databaseUrl);
      return outcome.ok
        ? { target, at, backAt: Date.now(), ok: true, note: `${outcome.terminated} backends terminated` }
        : { target, at, ok: false, note: `skipped: ${outcome.reason}` };
    }
    await deps.mesh.restart(target as ServiceSlot);
    return { target, at, backAt: Date.now(), ok: true };
  } catch (error) {
    return { target, at, ok: false, note: `failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
}

/**
 * Runs the plan against the clock of the load (`loadStartedAt`): each kill at
 * its time, whether or not the previous target is back yet (a restart under
 * load can take seconds). Resolves once every kill is done and its target is
 * back. `stopped` cancels the kills not yet begun (the harness is stopping).
 */
export async function runKills(deps: KillDeps, plan: readonly PlannedKill[], loadStartedAt: number, stopped: () => boolean): Promise<KillRecord[]> {
  const kills = plan.map(async (kill) => {
    while (!stopped() && Date.now() < loadStartedAt + kill.atMs) await new Promise((resolve) => setTimeout(resolve, 20));
    return stopped() ? undefined : killOne(deps, kill.target);
  });
  return (await Promise.all(kills)).filter((record) => record !== undefined).sort((a, b) => a.at - b.at);
}
