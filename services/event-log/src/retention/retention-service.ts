import type { SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { Counter, type Registry } from 'prom-client';
import { SqlRetentionStore } from '../adapters/sql-retention-store';
import type { EventLogConfig } from '../config';
import { RetentionJob, type RetentionTally } from './retention-job';

/**
 * The event-log's retention job from its config (decision 0041), with its metrics:
 * `switchyard_retention_purged_total{what}` (rows deleted and partitions dropped, by what) and
 * `switchyard_retention_ticks_total` (ticks this process ran as the leader). Not started.
 */
export function createRetentionJob(config: EventLogConfig, sql: SqlPool, isLeader: () => boolean, registry: Registry, log: Logger): RetentionJob {
  const purged = new Counter({ name: 'switchyard_retention_purged_total', help: 'What retention purged, by what (rows, or partitions dropped)', labelNames: ['what'], registers: [registry] });
  const ticks = new Counter({ name: 'switchyard_retention_ticks_total', help: 'Retention ticks this process ran as the leading event-log', registers: [registry] });
  const counted: Array<keyof RetentionTally> = ['partitionsDropped', 'keys', 'factRows', 'activationSkips', 'tries', 'transcriptEntries'];
  return new RetentionJob({
    store: new SqlRetentionStore(sql),
    log,
    isLeader,
    intervalMs: config.RETENTION_INTERVAL_MS,
    bounds: {
      batch: config.RETENTION_BATCH,
      maxBatches: config.RETENTION_MAX_BATCHES,
      partitionsAhead: config.RETENTION_PARTITIONS_AHEAD,
      lockTimeoutMs: config.RETENTION_LOCK_TIMEOUT_MS,
    },
    onTick: (tally) => {
      ticks.inc();
      for (const what of counted) if (tally[what] > 0) purged.inc({ what }, tally[what]);
    },
  });
}
