import { GROUPS, IngestMessageSchema, STREAMS } from '@switchyard/contracts';
import { OutboxRelay, SqlDeadLetterStore, SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { createRedis, lastErrorsKey, RedisIngestWriter, StreamConsumer, toKey, closeRedis } from '@switchyard/redis';
import { closeAll, registerDeadLetterGauge, startHealthServer, type Closable, storeChecks } from '@switchyard/runtime';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventLogConfig } from './config';
import { EventLog } from './event-log';
import { IngestTrimmer } from './ingest-trimmer';
import { SqlFactStore } from './adapters/sql-fact-store';
import { RedisFactPublisher } from './adapters/redis-fact-publisher';

/** A running event-log: its health port and how to stop it. */
export interface RunningEventLog extends Closable {
  healthPort: number;
}

/**
 * Wires the event-log from its config: Redis, PostgreSQL, the `ingest` consumer,
 * the ingest trimmer and the health server. Used by main.ts and by the
 * one-process `npm start`.
 */
export async function startEventLog(config: EventLogConfig, log: Logger): Promise<RunningEventLog> {
  const redis = createRedis(config.REDIS_URL, { connectionName: 'event-log' });
  const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'event-log' });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const stored = new Counter({ name: 'switchyard_facts_stored_total', help: 'Facts persisted', registers: [registry] });
  const duplicates = new Counter({ name: 'switchyard_facts_duplicate_total', help: 'Facts resolved to an earlier idempotencyKey', registers: [registry] });
  const relayed = new Counter({ name: 'switchyard_outbox_relayed_total', help: 'Facts moved from the outbox to ingest by this process', registers: [registry] });

  const ingestKey = toKey(config.REDIS_PREFIX, STREAMS.ingest);
  const deadLetters = new SqlDeadLetterStore(sql);
  // One writer for both: the relay's facts go in, and a dead-lettered fact's key is released.
  const ingest = new RedisIngestWriter(redis, config.REDIS_PREFIX, ingestKey, config.IDEMPOTENCY_TTL_SECONDS);
  registerDeadLetterGauge(registry, deadLetters, [{ stream: ingestKey, group: GROUPS.eventLog }]);
  const eventLog = new EventLog({
    store: new SqlFactStore(sql),
    publisher: new RedisFactPublisher(redis, toKey(config.REDIS_PREFIX, STREAMS.facts), config.FACTS_MAXLEN),
    claims: ingest,
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
  // The platform's own facts, recorded in PostgreSQL with their changes, reach `ingest` from here.
  const relay = new OutboxRelay({
    sql,
    databaseUrl: config.DATABASE_URL,
    sink: ingest,
    log,
    pollMs: config.OUTBOX_POLL_MS,
    onRelayed: (count) => relayed.inc(count),
  });
  await consumer.start();
  await relay.start();
  trimmer.start();
  const health = await startHealthServer({
    port: config.EVENT_LOG_HEALTH_PORT,
    host: config.HOST,
    registry,
    checks: storeChecks(redis, sql),
  });
  log.info({ consumer: config.EVENT_LOG_CONSUMER, healthPort: health.port }, 'event-log started');
  return {
    healthPort: health.port,
    close: () => closeAll([relay, consumer, trimmer, health, () => sql.$disconnect(), () => closeRedis(redis)]),
  };
}
