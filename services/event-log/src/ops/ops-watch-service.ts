import type { SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { Counter, type Registry } from 'prom-client';
import { SqlOpsStore } from '../adapters/sql-ops-store';
import type { EventLogConfig } from '../config';
import { OpsWatcher } from './ops-watcher';

/**
 * The event-log's ops watcher from its config (decision 0038), with its
 * metrics: `switchyard_ops_facts_total{kind, outcome}` (recorded, or
 * suppressed by the rate limit) and `switchyard_ops_watch_ticks_total` (looks
 * this process made as the leader). Not started.
 */
export function createOpsWatcher(config: EventLogConfig, sql: SqlPool, isLeader: () => boolean, registry: Registry, log: Logger): OpsWatcher {
  const facts = new Counter({
    name: 'switchyard_ops_facts_total',
    help: 'Ops facts (platform.*) this process recorded, or suppressed by their rate limit, by kind',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const ticks = new Counter({ name: 'switchyard_ops_watch_ticks_total', help: 'Looks the ops watcher took as the leading event-log', registers: [registry] });
  return new OpsWatcher({
    store: new SqlOpsStore(sql),
    log,
    isLeader,
    intervalMs: config.OPS_WATCH_INTERVAL_MS,
    windowMs: config.OPS_FACT_WINDOW_MS,
    thresholds: { backlogDepth: config.OPS_QUEUE_BACKLOG_DEPTH, deadLetters: config.OPS_DEAD_LETTERS_MIN, modelErrors: config.OPS_MODEL_ERRORS_MIN },
    metrics: { fact: (kind, outcome) => facts.inc({ kind, outcome }), ticked: () => ticks.inc() },
  });
}
