import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

/** Environment of the runner. Only what the shell needs; run settings come with its real work. */
export const RunnerEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9103 */
  RUNNER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9103),
});
export type RunnerConfig = z.infer<typeof RunnerEnvSchema>;

/** Parses the runner's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadRunnerConfig(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
  return loadConfig(RunnerEnvSchema, env);
}
