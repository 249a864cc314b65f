import { z } from 'zod';
import { AppError, ErrorCode, isHashTagged, RedisPrefixSchema, RedisTargetSchema } from '@switchyard/contracts';

/**
 * Variables every service reads. Services extend this with their own. The
 * defaults are the local development ones (services on this machine).
 */
export const BaseEnvSchema = z.object({
  /**
   * Redis (needs `maxmemory-policy noeviction`; AOF recommended): a `redis://` URL, or a Redis
   * Cluster as `redis-cluster://host:port,host:port` (decision 0061).
   */
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .superRefine((url, ctx) => {
      const parsed = RedisTargetSchema.safeParse(url);
      if (!parsed.success) ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]!.message });
    }),
  /** PostgreSQL, the system of record. */
  DATABASE_URL: z.url().default('postgresql://postgres@127.0.0.1:5432/switchyard'),
  /**
   * Every Redis key and BullMQ queue is under this prefix, so installations can share a Redis.
   * In braces (the default) it is a hash tag that keeps every key on one Redis Cluster slot.
   */
  REDIS_PREFIX: RedisPrefixSchema.default('{sy}'),
  /** pino level; logs are JSON lines, credentials redacted. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Interface HTTP servers (API, health and metrics) bind; 0.0.0.0 in containers. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Connections in each PostgreSQL pool of a process (the gateway has two: Prisma's and its raw-SQL hot paths'). */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
});
export type BaseConfig = z.infer<typeof BaseEnvSchema>;

/**
 * Parses `env` with `schema`. A missing or invalid variable throws an AppError
 * (CONFIG_INVALID) whose message names every bad variable, so start-up stops
 * before any side effect with a message a person can act on.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) {
    checkClusterPrefix(parsed.data);
    return parsed.data;
  }
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new AppError(ErrorCode.CONFIG_INVALID, `invalid configuration: ${problems.join('; ')}`, parsed.error.issues);
}

/** Boolean env flags: `true`/`1`/`yes` are true, `false`/`0`/`no`/empty are false. */
export const envBoolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** Comma-separated env lists: items trimmed, empty ones dropped; unset is the empty list. */
export const envList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

/**
 * A Redis Cluster needs the prefix to be a hash tag: without it a Lua script or
 * BullMQ's scripts would touch keys of different slots and fail (CROSSSLOT).
 */
function checkClusterPrefix(config: unknown): void {
  const { REDIS_URL: url, REDIS_PREFIX: prefix } = (config ?? {}) as { REDIS_URL?: unknown; REDIS_PREFIX?: unknown };
  if (typeof url !== 'string' || typeof prefix !== 'string') return;
  if (RedisTargetSchema.parse(url).kind === 'cluster' && !isHashTagged(prefix)) {
    throw new AppError(ErrorCode.CONFIG_INVALID, `invalid configuration: REDIS_PREFIX: a Redis Cluster needs a prefix in braces ({${prefix}})`);
  }
}
