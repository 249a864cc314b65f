import type { Redis } from './connection';

/** A consumer group's position on a stream, for metrics and trimming. */
export interface GroupStats {
  group: string;
  /** Entries delivered to the group and not acknowledged. */
  pending: number;
  /** Entries not yet delivered to the group (null when Redis cannot tell). */
  lag: number | null;
  lastDeliveredId: string;
}

/** Every group of a stream with its pending count and lag (XINFO GROUPS); [] when the stream is absent. */
export async function streamGroupStats(redis: Redis, stream: string): Promise<GroupStats[]> {
  let groups: unknown[];
  try {
    groups = (await redis.call('XINFO', 'GROUPS', stream)) as unknown[];
  } catch (error) {
    if (String(error).includes('no such key')) return [];
    throw error;
  }
  return groups.map((raw) => {
    const fields = raw as (string | number | null)[];
    const get = (name: string) => fields[fields.indexOf(name) + 1];
    const lag = get('lag');
    return {
      group: String(get('name')),
      pending: Number(get('pending') ?? 0),
      lag: lag === null || lag === undefined ? null : Number(lag),
      lastDeliveredId: String(get('last-delivered-id') ?? '0-0'),
    };
  });
}

/**
 * Trims a stream below what every group has acknowledged: XTRIM MINID to the
 * oldest entry that some group still has pending or has not yet been
 * delivered. Never trims a stream without groups. Returns the entries removed.
 * This is how `ingest` stays bounded without losing an entry that exists
 * nowhere else (MAXLEN would also delete pending entries).
 */
export async function trimAcknowledged(redis: Redis, stream: string): Promise<number> {
  const groups = await streamGroupStats(redis, stream);
  if (groups.length === 0) return 0;
  let minId: string | undefined;
  for (const group of groups) {
    let keepFrom = nextId(group.lastDeliveredId);
    if (group.pending > 0) {
      const summary = (await redis.xpending(stream, group.group)) as [number, string | null, string | null, unknown];
      if (summary[1]) keepFrom = summary[1];
    }
    if (minId === undefined || compareIds(keepFrom, minId) < 0) minId = keepFrom;
  }
  // Exact MINID (no `~`): the boundary is computed, so nothing at or above it goes.
  return (await redis.xtrim(stream, 'MINID', minId!)) as number;
}

function nextId(id: string): string {
  const [ms, seq] = id.split('-');
  return `${ms}-${BigInt(seq ?? '0') + 1n}`;
}

/**
 * Whether a group has read and acknowledged everything on the stream: nothing
 * pending and its last delivered id is the stream's last generated one. The
 * group's `lag` is not used: Redis only estimates it after trims and a
 * restart, and it can report entries unread of a stream read to its end.
 */
export async function groupCaughtUp(redis: Redis, stream: string, group: string): Promise<boolean> {
  const mine = (await streamGroupStats(redis, stream)).find((stats) => stats.group === group);
  if (!mine || mine.pending !== 0) return false;
  return (await lastGeneratedId(redis, stream)) === mine.lastDeliveredId;
}

/** The id of the newest entry ever added to a stream ('0-0': no such stream). Unlike its length, trimming does not change it. */
export async function lastGeneratedId(redis: Redis, stream: string): Promise<string> {
  try {
    const info = (await redis.call('XINFO', 'STREAM', stream)) as unknown[];
    return String(info[info.indexOf('last-generated-id') + 1]);
  } catch (error) {
    if (String(error).includes('no such key')) return '0-0';
    throw error;
  }
}

/** Orders stream ids `ms-seq` numerically. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map((part) => BigInt(part));
  const [bm, bs] = b.split('-').map((part) => BigInt(part));
  if (am !== bm) return am! < bm! ? -1 : 1;
  if (as !== bs) return as! < bs! ? -1 : 1;
  return 0;
}
