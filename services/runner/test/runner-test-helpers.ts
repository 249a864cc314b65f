import { groupCaughtUp } from '@switchyard/redis';
import type { TestPlatform } from '@switchyard/testing';

export { apiClient, postFactsConcurrently, startTestPlatform, waitFor } from '@switchyard/testing';
export type { TestPlatform } from '@switchyard/testing';

/**
 * Why this exists: the runner tests count the facts the runner recorded, so
 * they wait until the event-log has read and acknowledged everything on
 * `ingest`. `idle` is true when the group has read everything and has nothing pending.
 */
export async function streamGroupStatsOf(platform: TestPlatform, stream: string, group: string): Promise<{ idle: boolean }> {
  return { idle: await groupCaughtUp(platform.redis.redis, `${platform.redis.prefix}:${stream}`, group) };
}

/** A scripted agent's spec whose runs take `steps × stepMs`, triggered by `kind` (a deep queue unless `flow` says otherwise). */
export const scripted = (name: string, kind: string, steps: number, stepMs: number, flow: Record<string, unknown> = {}) => ({
  name,
  instructions: 'Act on the fact.',
  model: { provider: 'scripted', name: 'script', params: { stepMs } },
  script: Array.from({ length: steps }, (_, i) => ({ say: `step ${i}` })),
  triggers: [{ kind }],
  flow: { queueCap: 10_000, ...flow },
});
