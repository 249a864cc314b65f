import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

/** Environment of the matcher. Only what the shell needs; matching settings come with its real work. */
export const MatcherEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9102 */
  MATCHER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9102),
});
export type MatcherConfig = z.infer<typeof MatcherEnvSchema>;

/** Parses the matcher's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadMatcherConfig(env: NodeJS.ProcessEnv = process.env): MatcherConfig {
  return loadConfig(MatcherEnvSchema, env);
}
