import { hostname } from 'node:os';
import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

/** Environment of the approvals service (decision 0025). */
export const ApprovalsEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9104 */
  APPROVALS_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9104),
  /** This process's consumer name in the `approvals` group on `facts`. */
  APPROVALS_CONSUMER: z.string().min(1).default(`${hostname()}-${process.pid}`),
  /** How often pending approvals past their expiry (their delayed job lost), approvals of stopped runs and ready parked runs are swept. */
  APPROVALS_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Expiry jobs handled at once by this process. */
  APPROVALS_EXPIRY_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /** On SIGTERM, how long expiry jobs in progress may take before the worker is closed anyway. */
  APPROVALS_CLOSE_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /** Pending facts idle this long are taken over from a dead approvals process. */
  CLAIM_IDLE_MS: z.coerce.number().int().min(200).default(30_000),
  /** Deliveries before a fact is dead-lettered for the approvals service. */
  MAX_DELIVERIES: z.coerce.number().int().min(1).default(5),
});
export type ApprovalsConfig = z.infer<typeof ApprovalsEnvSchema>;

/** Parses the approvals service's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadApprovalsConfig(env: NodeJS.ProcessEnv = process.env): ApprovalsConfig {
  return loadConfig(ApprovalsEnvSchema, env);
}
