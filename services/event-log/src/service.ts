import { GROUPS, IngestMessageSchema, STREAMS } from '@switchyard/contracts';
import { FactRecorder, OutboxRelay, SqlDeadLetterStore, SqlFactStore, SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { createRedis, lastErrorsKey, RedisFactPublisher, RedisIdempotencyClaims, StreamConsumer, toKey, closeRedis } from '@switchyard/redis';
import { registerDeadLetterGauge, startService, storeChecks, type RunningService } from '@switchyard/runtime';
import { Counter } from 'prom-client';
import type { EventLogConfig } from './config';
import { EventLog } from './event-log';
import { IngestTrimmer } from './ingest-trimmer';
import { createOpsWatcher } from './ops/ops-watch-service';
import { createRetentionJob } from './retention/retention-service';
import { createScheduler } from './schedules/scheduler-service';

/** A running event-log: its health port and how to stop it. */
export type RunningEventLog = RunningService & { consumer: string };

/**
 * Wires the event-log from its config: Redis, PostgreSQL, the `ingest` consumer,
 * the outbox relay, the ingest trimmer, the ops watcher, the retention job and the scheduler, on the shape every service follows.
 * Used by main.ts and by the one-process `npm start`.
 */
export function startEventLog(config: EventLogConfig, log: Logger): Promise<RunningEventLog> {
  return startService({ name: 'event-log', healthPort: config.EVENT_LOG_HEALTH_PORT, host: config.HOST, log }, async (service) => {
    const { registry } = service;
    const redis = createRedis(config.REDIS_URL, { connectionName: 'event-log' });
    service.onClose(() => closeRedis(redis));
    const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'event-log' });
    service.onClose(() => sql.$disconnect());
    service.check(storeChecks(redis, sql));
    const stored = new Counter({ name: 'switchyard_facts_stored_total', help: 'Facts persisted', registers: [registry] });
    const duplicates = new Counter({ name: 'switchyard_facts_duplicate_total', help: 'Facts resolved to an earlier idempotencyKey', registers: [registry] });
    const relayed = new Counter({ name: 'switchyard_outbox_relayed_total', help: 'Facts stored and published from the outbox by this process', registers: [registry] });

    const ingestKey = toKey(config.REDIS_PREFIX, STREAMS.ingest);
    const deadLetters = new SqlDeadLetterStore(sql);
    // A dead-lettered fact's key is released where the gateway claimed it.
    const claims = new RedisIdempotencyClaims(redis, config.REDIS_PREFIX);
    registerDeadLetterGauge(registry, deadLetters, [{ stream: ingestKey, group: GROUPS.eventLog }]);
    // Producers' facts (from `ingest`) and the platform's own (from the outbox) are stored and published the same way.
    const publisher = new RedisFactPublisher(redis, toKey(config.REDIS_PREFIX, STREAMS.facts), config.FACTS_MAXLEN);
    const recorder = new FactRecorder(new SqlFactStore(sql), publisher);
    const eventLog = new EventLog({
      recorder,
      claims,
      log,
      metrics: { stored: (n) => stored.inc(n), duplicates: (n) => duplicates.inc(n) },
    });
    const consumer = new StreamConsumer({
      redis,
      stream: ingestKey,
      group: GROUPS.eventLog,
      consumer: config.EVENT_LOG_CONSUMER,
      deadLetters,
      lastErrorsKey: lastErrorsKey(config.REDIS_PREFIX, STREAMS.ingest, GROUPS.eventLog),
      decode: (raw) => IngestMessageSchema.parse(raw),
      handle: (entries) => eventLog.handle(entries),
      onDeadLettered: (entry) => eventLog.deadLettered(entry),
      log,
      batchSize: config.EVENT_LOG_BATCH,
      lingerMs: config.EVENT_LOG_LINGER_MS,
      claimIdleMs: config.CLAIM_IDLE_MS,
      blockMs: Math.min(1000, Math.floor(config.CLAIM_IDLE_MS / 2)),
      maxDeliveries: config.MAX_DELIVERIES,
    });
    const trimmer = new IngestTrimmer(redis, ingestKey, config.INGEST_TRIM_INTERVAL_MS, log);
    // The platform's own facts, recorded in PostgreSQL with their changes, are stored and published from here.
    const relay = new OutboxRelay({
      sql,
      databaseUrl: config.DATABASE_DIRECT_URL ?? config.DATABASE_URL,
      publisher,
      log,
      pollMs: config.OUTBOX_POLL_MS,
      lingerMs: config.OUTBOX_LINGER_MS,
      onRelayed: (count) => relayed.inc(count),
    });
    service.onClose(consumer);
    await consumer.start();
    service.onClose(relay);
    await relay.start();
    service.onClose(trimmer);
    trimmer.start();
    if (config.OPS_FACTS_ENABLED) {
      // The platform's own trouble as facts (decision 0038): the relay's leader looks, one replica at a time.
      service.onClose(createOpsWatcher(config, sql, () => relay.isLeader, registry, log)).start();
    }
    if (config.RETENTION_ENABLED) {
      // Retention (decision 0041): the relay's leader purges, one replica at a time.
      service.onClose(createRetentionJob(config, sql, () => relay.isLeader, registry, log)).start();
    }
    if (config.SCHEDULES_ENABLED) {
      // Schedules fire here (decision 0048): their facts go through the outbox this process relays.
      const scheduler = createScheduler(config, sql, registry, log);
      service.onClose(scheduler);
      scheduler.start();
    }
    return { consumer: config.EVENT_LOG_CONSUMER };
  });
}
