import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

/** Environment of the approvals service. Only what the shell needs; approval settings come with its real work. */
export const ApprovalsEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9104 */
  APPROVALS_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9104),
});
export type ApprovalsConfig = z.infer<typeof ApprovalsEnvSchema>;

/** Parses the approvals service's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadApprovalsConfig(env: NodeJS.ProcessEnv = process.env): ApprovalsConfig {
  return loadConfig(ApprovalsEnvSchema, env);
}
