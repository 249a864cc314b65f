import { parseArgs } from 'node:util';
import { z } from 'zod';
import { KILL_TARGETS } from './kill-plan';

/**
 * Options of `npm run chaos` (`npm run chaos -- --rate 100 --duration 30`).
 * Bounded on purpose: the harness loads only the platform it started itself,
 * on 127.0.0.1, for at most ten minutes.
 */
export const ChaosOptionsSchema = z.strictObject({
  /** Facts offered per second. @defaultValue 300 */
  rate: z.coerce.number().int().min(1).max(1000).default(300),
  /** Seconds of load. @defaultValue 120 */
  duration: z.coerce.number().int().min(5).max(600).default(120),
  /**
   * What to kill during the load, in order, spread evenly over it: `gateway`,
   * `event-log:0|1`, `matcher:0|1`, `runner:0|1`, `redis` (SIGKILL and restart
   * of the harness's own redis-server), `postgres` (pg_terminate_backend of
   * every connection to the harness's database). `none` kills nothing.
   * @defaultValue every one of them
   */
  kills: z
    .string()
    .default(KILL_TARGETS.join(','))
    .transform((value) => (value === 'none' ? [] : value.split(',').map((s) => s.trim())))
    .pipe(z.array(z.enum(KILL_TARGETS)).refine((targets) => new Set(targets).size === targets.length, { message: 'each target at most once' })),
  /** Most seconds to wait for quiescence once the load ended. @defaultValue 180 */
  quiesceTimeout: z.coerce.number().int().min(10).max(1800).default(180),
  /**
   * `single`: one redis-server of the harness's own. `cluster`: a Redis Cluster of three
   * masters of its own (decision 0061); the `redis` kill SIGKILLs and restarts the master
   * holding the platform's keys.
   * @defaultValue single
   */
  redis: z.enum(['single', 'cluster']).default('single'),
  /** Keep the database (and print its URL) instead of dropping it. @defaultValue false */
  keep: z.boolean().default(false),
});
export type ChaosOptions = z.infer<typeof ChaosOptionsSchema>;

/** Parses the command line (`--rate N --duration S --kills a,b --quiesce-timeout S --redis single|cluster --keep`). */
export function parseChaosOptions(argv: string[]): ChaosOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      rate: { type: 'string' },
      duration: { type: 'string' },
      kills: { type: 'string' },
      'quiesce-timeout': { type: 'string' },
      keep: { type: 'boolean' },
      redis: { type: 'string' },
    },
  });
  const { 'quiesce-timeout': quiesceTimeout, ...rest } = values;
  return ChaosOptionsSchema.parse({ ...rest, quiesceTimeout });
}
