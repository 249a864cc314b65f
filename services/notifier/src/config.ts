import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

/** Environment of the notifier. Only what the shell needs; delivery settings come with its real work. */
export const NotifierEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9105 */
  NOTIFIER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9105),
});
export type NotifierConfig = z.infer<typeof NotifierEnvSchema>;

/** Parses the notifier's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadNotifierConfig(env: NodeJS.ProcessEnv = process.env): NotifierConfig {
  return loadConfig(NotifierEnvSchema, env);
}
