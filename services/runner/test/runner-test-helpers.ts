import { streamGroupStats } from '@switchyard/redis';
import type { TestPlatform } from '@switchyard/testing';

export { apiClient, postFactsConcurrently, startTestPlatform, waitFor } from '@switchyard/testing';
export type { TestPlatform } from '@switchyard/testing';

/**
 * Why this exists: the runner tests count the facts the runner recorded, so
 * they wait until the event-log has read and acknowledged everything on
 * `ingest`. `idle` is true when the group has no lag and nothing pending.
 */
export async function streamGroupStatsOf(platform: TestPlatform, stream: string, group: string): Promise<{ idle: boolean }> {
  const stats = await streamGroupStats(platform.redis.redis, `${platform.redis.prefix}:${stream}`);
  const mine = stats.find((s) => s.group === group);
  return { idle: mine !== undefined && mine.pending === 0 && (mine.lag ?? 1) === 0 };
}
