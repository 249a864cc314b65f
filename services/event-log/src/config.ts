import { hostname } from 'node:os';
import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

export const EventLogEnvSchema = BaseEnvSchema.extend({
  /** `facts` is trimmed to about this many entries; PostgreSQL keeps them all. */
  FACTS_MAXLEN: z.coerce.number().int().min(1000).default(1_000_000),
  /** Ingest entries persisted per transaction. */
  EVENT_LOG_BATCH: z.coerce.number().int().min(1).max(1000).default(500),
  /**
   * After a batch smaller than EVENT_LOG_BATCH, wait this long before the next
   * read: what arrived meanwhile is persisted and published as one batch; the
   * outbox relay likewise waits this long after a commit's notification. A
   * fact may be published up to this much later; the event-log, PostgreSQL,
   * Redis and the consumers of `facts` wake up less often (decision 0017).
   * 0 reads again at once.
   */
  EVENT_LOG_LINGER_MS: z.coerce.number().int().min(0).max(100).default(5),
  /** This process's consumer name in the `event-log` group. */
  EVENT_LOG_CONSUMER: z.string().min(1).default(`${hostname()}-${process.pid}`),
  /** Pending entries idle this long are taken over from a dead consumer. */
  CLAIM_IDLE_MS: z.coerce.number().int().min(200).default(30_000),
  /** Deliveries before an ingest entry goes to the dead letters (refused facts go at once). */
  MAX_DELIVERIES: z.coerce.number().int().min(1).default(5),
  /** How often `ingest` is trimmed below what the group acknowledged. */
  INGEST_TRIM_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
  /**
   * How often the outbox relay drains without being notified, and a standby
   * relay tries to take over from one that died. @defaultValue 1000
   */
  OUTBOX_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. */
  EVENT_LOG_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9101),
});
export type EventLogConfig = z.infer<typeof EventLogEnvSchema>;

export function loadEventLogConfig(env: NodeJS.ProcessEnv = process.env): EventLogConfig {
  return loadConfig(EventLogEnvSchema, env);
}
