import type { Redis } from '@switchyard/redis';

/** CPU per Redis round trip, in µs, of this process (the client) and of the Redis server. */
export interface RoundTripCost {
  gapMs: number;
  clientUs: number;
  serverUs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function redisCpuUs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
}

/**
 * Why this exists: on a small VM the cost of a message between processes
 * depends less on the work than on whether the receiver was asleep. This
 * measures one PING round trip back to back (both processes stay awake) and
 * after `gapMs` of idleness (both wake up for it), in CPU time of each side,
 * so that a benchmark can say what a wake-up costs on the machine it ran on.
 */
export async function roundTripCost(redis: Redis, gapsMs: readonly number[] = [0, 1, 5]): Promise<RoundTripCost[]> {
  for (let i = 0; i < 500; i++) await redis.ping(); // warm-up
  const costs: RoundTripCost[] = [];
  for (const gapMs of gapsMs) {
    const n = gapMs === 0 ? 5000 : Math.round(1500 / gapMs);
    const server0 = await redisCpuUs(redis);
    const client0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      await redis.ping();
      if (gapMs > 0) await sleep(gapMs);
    }
    const client = process.cpuUsage(client0);
    const server = (await redisCpuUs(redis)) - server0;
    costs.push({ gapMs, clientUs: (client.user + client.system) / n, serverUs: server / n });
  }
  return costs;
}
