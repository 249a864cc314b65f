import type { SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { Counter, type Registry } from 'prom-client';
import { SqlScheduleFirer } from '../adapters/sql-schedule-firer';
import type { EventLogConfig } from '../config';
import { Scheduler } from './scheduler';

/**
 * The event-log's scheduler from its config (decision 0048), with its metric
 * `switchyard_schedule_slots_total{outcome}`: slots this process fired, found
 * already fired, or passed over. Not started.
 */
export function createScheduler(config: EventLogConfig, sql: SqlPool, registry: Registry, log: Logger): Scheduler {
  const slots = new Counter({
    name: 'switchyard_schedule_slots_total',
    help: 'Schedule slots this process fired, found already fired (duplicate), or passed over (skipped)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  return new Scheduler({
    firer: new SqlScheduleFirer(sql, config.SCHEDULE_GRACE_MS),
    log,
    tickMs: config.SCHEDULE_TICK_MS,
    batch: config.SCHEDULE_BATCH,
    onTick: (tick) => {
      slots.inc({ outcome: 'fired' }, tick.fired);
      slots.inc({ outcome: 'duplicate' }, tick.duplicates);
      slots.inc({ outcome: 'skipped' }, tick.skipped);
    },
  });
}
