import { hostname } from 'node:os';
import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

/** Environment of the matcher. */
export const MatcherEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9102 */
  MATCHER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9102),
  /** This process's consumer name in the `matcher` group. */
  MATCHER_CONSUMER: z.string().min(1).default(`${hostname()}-${process.pid}`),
  /** Facts per batch. */
  MATCHER_BATCH: z.coerce.number().int().min(1).max(1000).default(200),
  /** Pending facts idle this long are taken over from a dead matcher. */
  CLAIM_IDLE_MS: z.coerce.number().int().min(200).default(30_000),
  /** Deliveries before a fact is dead-lettered for the matcher. */
  MAX_DELIVERIES: z.coerce.number().int().min(1).default(5),
  /** Facts whose causation depth reaches this activate nothing. */
  MAX_CAUSATION_DEPTH: z.coerce.number().int().min(0).max(100).default(5),
});
export type MatcherConfig = z.infer<typeof MatcherEnvSchema>;

/** Parses the matcher's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadMatcherConfig(env: NodeJS.ProcessEnv = process.env): MatcherConfig {
  return loadConfig(MatcherEnvSchema, env);
}
