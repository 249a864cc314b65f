import { z } from 'zod';

/** A node of a Redis Cluster's start-up list. */
export interface RedisClusterNode {
  host: string;
  port: number;
}

/**
 * Where Switchyard's Redis is (decision 0061): one server
 * (`redis://` / `rediss://`, any URL ioredis reads) or a Redis Cluster given
 * by some of its nodes, `redis-cluster://[user:password@]host:port,host:port`
 * (`rediss-cluster://` for TLS). A cluster needs only one reachable node to
 * find the others; listing more survives one being down at start-up.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: RedisClusterNode[]; username?: string; password?: string; tls: boolean };

const CLUSTER_URL = /^(rediss?)-cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/;
const NODE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function parseCluster(match: RegExpExecArray, ctx: z.RefinementCtx): RedisTarget {
  const [, scheme, credentials, hostList] = match;
  const nodes: RedisClusterNode[] = [];
  for (const entry of hostList!.split(',')) {
    const node = NODE.exec(entry.trim());
    const port = node ? Number(node[2]) : 0;
    if (!node || port < 1 || port > 65_535) {
      ctx.addIssue({ code: 'custom', message: `cluster node ${JSON.stringify(entry)} is not host:port` });
      return z.NEVER;
    }
    nodes.push({ host: node[1]!.replace(/^\[|\]$/g, ''), port });
  }
  const [username, password] = credentials === undefined ? [] : credentials.includes(':') ? [credentials.slice(0, credentials.indexOf(':')), credentials.slice(credentials.indexOf(':') + 1)] : [undefined, credentials];
  return {
    kind: 'cluster',
    nodes,
    ...(username ? { username: decodeURIComponent(username) } : {}),
    ...(password ? { password: decodeURIComponent(password) } : {}),
    tls: scheme === 'rediss',
  };
}

/** `REDIS_URL` parsed into a RedisTarget; anything but a redis(s) URL or a cluster node list is refused. */
export const RedisTargetSchema = z.string().transform((url, ctx): RedisTarget => {
  const cluster = CLUSTER_URL.exec(url);
  if (cluster) return parseCluster(cluster, ctx);
  if (/^rediss?:\/\//.test(url) && URL.canParse(url)) return { kind: 'single', url };
  ctx.addIssue({ code: 'custom', message: 'a redis:// or rediss:// URL, or redis-cluster://host:port,host:port' });
  return z.NEVER;
});

/**
 * `REDIS_PREFIX`: the part every Redis key and BullMQ queue starts with. In
 * braces (`{sy}`, the default) it is a hash tag: every key of the
 * installation hashes to one Redis Cluster slot, so multi-key commands, Lua
 * scripts and BullMQ's scripts work on a cluster. Without braces (`sy`, the
 * layout before decision 0061) it works on one server only.
 */
export const RedisPrefixSchema = z
  .string()
  .regex(/^(\{[a-z0-9_-]{1,32}\}|[a-z0-9_-]{1,32})$/, 'lowercase letters, digits, _ and -, optionally in braces ({sy})');

/** True when every key under `prefix` hashes to one cluster slot (the prefix is a hash tag). */
export function isHashTagged(prefix: string): boolean {
  return prefix.startsWith('{') && prefix.endsWith('}');
}
