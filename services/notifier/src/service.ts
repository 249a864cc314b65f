import { FactsMessageSchema, GROUPS, STREAMS, type GroupName } from '@switchyard/contracts';
import { secretBoxOf } from '@switchyard/config';
import { actionSigningKey, MattermostRest } from '@switchyard/core';
import { SqlDeadLetterStore, SqlPool } from '@switchyard/db';
import { RunTraceExporter, SqlTraceReader } from '@switchyard/traces';
import type { Logger } from '@switchyard/logging';
import { closeRedis, createRedis, duplicateRedis, lastErrorsKey, StreamConsumer, toKey } from '@switchyard/redis';
import { registerDeadLetterGauge, startService, storeChecks, type RunningService } from '@switchyard/runtime';
import { createNotificationQueue, queueSink, startDeliveryWorker } from './adapters/notification-queue';
import { SqlNotifierStore } from './adapters/sql-notifier-store';
import type { NotifierConfig } from './config';
import { Delivery } from './delivery';
import { Notifier, type NotifierInput } from './notifier';
import { TraceExport } from './trace-export';

/** A running notifier: its health port, its consumer name and how to stop it. */
export type RunningNotifier = RunningService & { consumer: string };

/** How long closing waits for deliveries in flight before it lets go (their jobs are retried elsewhere). */
const WORKER_CLOSE_DEADLINE_MS = 5_000;

/**
 * Wires the notifier (decision 0030): its group on `facts` turns facts into
 * jobs of the queue `notifications`, and its worker delivers them to
 * Mattermost. Used by main.ts and by the one-process `npm start`.
 */
export function startNotifier(config: NotifierConfig, log: Logger): Promise<RunningNotifier> {
  return startService({ name: 'notifier', healthPort: config.NOTIFIER_HEALTH_PORT, host: config.HOST, log }, async (service) => {
    const box = secretBoxOf(config);
    const redis = createRedis(config.REDIS_URL, { connectionName: 'notifier' });
    service.onClose(() => closeRedis(redis));
    redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
    const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'notifier' });
    service.onClose(() => sql.$disconnect());
    service.check(storeChecks(redis, sql));
    const store = new SqlNotifierStore(sql, box, log);
    const signer = config.NOTIFIER_ACTION_URL && config.SECRETS_KEY ? { actionUrl: config.NOTIFIER_ACTION_URL, key: actionSigningKey(config.SECRETS_KEY) } : null;
    const rest = new MattermostRest({ allowPrivate: config.NOTIFICATIONS_ALLOW_PRIVATE, allowedHosts: config.NOTIFICATIONS_ALLOWED_HOSTS, timeoutMs: config.NOTIFIER_REQUEST_TIMEOUT_MS });
    const delivery = new Delivery({ store, rest, signer, log, backoffMs: config.NOTIFIER_BACKOFF_MS });

    const queue = createNotificationQueue(redis, config.REDIS_PREFIX, { attempts: config.NOTIFIER_MAX_ATTEMPTS });
    service.onClose(queue);
    // BullMQ workers block: a connection of their own that retries for ever.
    const workerConnection = duplicateRedis(redis, { maxRetriesPerRequest: null, connectionName: 'notifier:deliveries' });
    service.onClose(() => closeRedis(workerConnection));
    const worker = startDeliveryWorker({
      connection: workerConnection,
      prefix: config.REDIS_PREFIX,
      delivery,
      concurrency: config.NOTIFIER_CONCURRENCY,
      lockMs: config.NOTIFIER_LOCK_MS,
      backoffMs: config.NOTIFIER_BACKOFF_MS,
      log,
    });
    // worker.close() waits for active jobs with no deadline of its own.
    service.onClose(() => Promise.race([worker.close(), new Promise<void>((resolve) => setTimeout(resolve, WORKER_CLOSE_DEADLINE_MS).unref())]).then(() => worker.close(true)));

    const notifier = new Notifier({ store, jobs: queueSink(queue), log });
    const deadLetters = new SqlDeadLetterStore(sql);
    registerDeadLetterGauge(service.registry, deadLetters, [{ stream: toKey(config.REDIS_PREFIX, STREAMS.facts), group: GROUPS.notifier }]);
    const groups = { service, config, redis, deadLetters, log };
    await startFactsGroup(groups, GROUPS.notifier, (inputs) => notifier.handle(inputs));
    if (config.OTEL_EXPORTER_OTLP_ENDPOINT) await startTraceExport(groups, sql);
    return { consumer: config.NOTIFIER_CONSUMER };
  });
}

/** What a consumer group of the notifier on `facts` needs. */
interface FactsGroupDeps {
  service: Parameters<Parameters<typeof startService>[1]>[0];
  config: NotifierConfig;
  redis: ReturnType<typeof createRedis>;
  deadLetters: SqlDeadLetterStore;
  log: Logger;
}

/** Starts one of the notifier's groups on `facts` (notifications, trace export): each reads every fact on its own. */
async function startFactsGroup(deps: FactsGroupDeps, group: GroupName, handle: (inputs: NotifierInput[]) => Promise<void>): Promise<void> {
  const { config, log } = deps;
  const consumer = new StreamConsumer({
    redis: deps.redis,
    stream: toKey(config.REDIS_PREFIX, STREAMS.facts),
    group,
    consumer: config.NOTIFIER_CONSUMER,
    deadLetters: deps.deadLetters,
    lastErrorsKey: lastErrorsKey(config.REDIS_PREFIX, STREAMS.facts, group),
    decode: (raw) => FactsMessageSchema.parse(raw),
    handle: (entries) => handle(entries.map(({ message }) => ({ fact: message.fact, workspaceId: message.workspaceId }))),
    log,
    claimIdleMs: config.CLAIM_IDLE_MS,
    blockMs: Math.min(1000, Math.floor(config.CLAIM_IDLE_MS / 2)),
    startId: '$',
  });
  deps.service.onClose(consumer);
  await consumer.start();
}

/** The `traces` group on `facts`: each ended run's trace to the OTLP/HTTP collector (decision 0057). */
async function startTraceExport(deps: FactsGroupDeps, sql: SqlPool): Promise<void> {
  const { config, log } = deps;
  const exporter = new RunTraceExporter({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT!, headers: config.OTEL_EXPORTER_OTLP_HEADERS, timeoutMs: config.NOTIFIER_REQUEST_TIMEOUT_MS });
  deps.service.onClose(() => exporter.shutdown());
  const traces = new TraceExport({ reader: new SqlTraceReader(sql), exporter, log });
  await startFactsGroup(deps, GROUPS.traces, (inputs) => traces.handle(inputs));
}
