import { hostname } from 'node:os';
import { z } from 'zod';
import { BaseEnvSchema, envBoolean, loadConfig } from '@switchyard/config';

export const EventLogEnvSchema = BaseEnvSchema.extend({
  /** `facts` is trimmed to about this many entries; PostgreSQL keeps them all. */
  FACTS_MAXLEN: z.coerce.number().int().min(1000).default(1_000_000),
  /** Ingest entries persisted per transaction. */
  EVENT_LOG_BATCH: z.coerce.number().int().min(1).max(1000).default(500),
  /**
   * After a batch smaller than EVENT_LOG_BATCH, wait this long before the next
   * read: what arrived meanwhile is persisted and published as one batch. A
   * fact may be published up to this much later; the event-log, PostgreSQL,
   * Redis and the consumers of `facts` wake up less often (decision 0017).
   * 0 reads again at once.
   */
  EVENT_LOG_LINGER_MS: z.coerce.number().int().min(0).max(100).default(5),
  /**
   * After a commit's notification, the outbox relay waits this long before it
   * drains: the platform's own facts of that moment (a run's queued, started
   * and completed, a few ms apart) are stored and published as one round, and
   * reach the matcher as one batch, not a wake-up of each process per fact.
   * These facts are off the path of a producer's fact to its run; a fact a
   * client acts on at once is flushed by its writer, not left to the relay.
   */
  OUTBOX_LINGER_MS: z.coerce.number().int().min(0).max(1000).default(25),
  /**
   * The outbox relay's own connection: it LISTENs for commits and holds the
   * relay's session advisory lock, neither of which survives a pooler in
   * transaction mode (PgBouncer). Set it to the server itself when DATABASE_URL
   * names such a pooler (docs/scaling.md); unset, DATABASE_URL.
   */
  DATABASE_DIRECT_URL: z.url().optional(),
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
  /**
   * Whether the ops watcher records the platform's own trouble (lost runners,
   * backlogged lanes, growing dead letters, failing models) as `platform.*`
   * facts in the workspaces it affects (decision 0038). @defaultValue true
   */
  OPS_FACTS_ENABLED: envBoolean.default(true),
  /** How often the ops watcher looks; one event-log replica looks at a time (the outbox relay's leader). @defaultValue 10000 */
  OPS_WATCH_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /**
   * At most one ops fact per kind, workspace and key (a runner, a lane, a
   * stream and group, a model provider) per this window; model errors and
   * dead letters are counted over it too. @defaultValue 300000
   */
  OPS_FACT_WINDOW_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  /** Queued runs from which a lane is backlogged (`platform.queue_backlogged`); it recovers below half of it. @defaultValue 100 */
  OPS_QUEUE_BACKLOG_DEPTH: z.coerce.number().int().min(1).default(100),
  /** New dead letters of a workspace in one stream and group within the window that make a `platform.dead_letters_growing`. @defaultValue 1 */
  OPS_DEAD_LETTERS_MIN: z.coerce.number().int().min(1).default(1),
  /** Runs of a workspace failed by one model provider's errors within the window that make a `platform.model_errors`. @defaultValue 3 */
  OPS_MODEL_ERRORS_MIN: z.coerce.number().int().min(1).default(3),
  /**
   * Whether the retention job runs: it makes the (week) partitions of platform_events ahead, and
   * purges facts, transcripts, activation skips and tries past each workspace's retention
   * (decision 0041). One event-log replica runs it at a time (the outbox relay's leader).
   * Off, nothing is purged and facts of weeks without a partition go to the default partition.
   * @defaultValue true
   */
  RETENTION_ENABLED: envBoolean.default(true),
  /** How often the retention job ticks (the first tick at start). @defaultValue 600000 (10 minutes) */
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(600_000),
  /** Rows one retention delete statement removes at most. @defaultValue 5000 */
  RETENTION_BATCH: z.coerce.number().int().min(1).max(100_000).default(5000),
  /** Delete statements per kind of row, and partition drops, per retention tick: a tick deletes at most RETENTION_BATCH × this rows of each kind. @defaultValue 20 */
  RETENTION_MAX_BATCHES: z.coerce.number().int().min(1).max(1000).default(20),
  /** UTC days ahead of today whose platform_events partitions (one per UTC week) the retention job keeps made. @defaultValue 7 */
  RETENTION_PARTITIONS_AHEAD: z.coerce.number().int().min(1).max(90).default(7),
  /**
   * How long making or dropping a partition waits for its lock on platform_events (a drop holds
   * the table exclusively for a moment) before giving up until the next tick. @defaultValue 1000
   */
  RETENTION_LOCK_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * Whether this event-log fires the workspaces' schedules (decision 0048).
   * Every replica may: a due schedule is claimed by one at a time. @defaultValue true
   */
  SCHEDULES_ENABLED: envBoolean.default(true),
  /** How often the scheduler looks for due schedules; a fire is recorded at most this long after its slot. @defaultValue 200 */
  SCHEDULE_TICK_MS: z.coerce.number().int().min(10).max(60_000).default(200),
  /**
   * How old a slot may be and still fire on time; older due slots were missed
   * (the scheduler was down) and follow the schedule's `missed` policy. @defaultValue 60000
   */
  SCHEDULE_GRACE_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  /** Due schedules claimed and fired per transaction. @defaultValue 200 */
  SCHEDULE_BATCH: z.coerce.number().int().min(1).max(5_000).default(200),
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. */
  EVENT_LOG_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9101),
});
export type EventLogConfig = z.infer<typeof EventLogEnvSchema>;

export function loadEventLogConfig(env: NodeJS.ProcessEnv = process.env): EventLogConfig {
  return loadConfig(EventLogEnvSchema, env);
}
