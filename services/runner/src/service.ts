import { STREAMS } from '@switchyard/contracts';
import { SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { closeRedis, createActivationQueue, createRedis, once, RedisIngestWriter, toKey } from '@switchyard/redis';
import { closeAll, startHealthServer, type Closable, storeChecks } from '@switchyard/runtime';
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { BullmqJobWaker, createActivationWorker } from './adapters/bullmq-activation-worker';
import { SqlRunStore } from './adapters/sql-run-store';
import { RedisAgentSlots } from './adapters/redis-agent-slots';
import type { RunnerConfig } from './config';
import { Runner } from './runner';
import { ProviderExecutor, ScriptedExecutor } from './scripted-executor';

/** A running runner: its health port and how to stop it. */
export interface RunningRunner extends Closable {
  healthPort: number;
}

/** Resolves after `ms` without keeping the process alive. */
function deadline(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Wires the runner: the BullMQ worker on `activations`, the run ledger, the
 * agent slots and the executors. Used by main.ts and by the one-process
 * `npm start`.
 */
export async function startRunner(config: RunnerConfig, log: Logger): Promise<RunningRunner> {
  const redis = createRedis(config.REDIS_URL, { connectionName: `runner:${config.RUNNER_NAME}` });
  const prisma = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'runner' });
  try {
    // Fail start-up, not a later job, when a store does not answer (BullMQ's own
    // connection would wait for Redis for ever).
    await redis.ping();
    await prisma.$queryRawUnsafe('SELECT 1');
  } catch (error) {
    await closeAll([() => prisma.$disconnect(), () => closeRedis(redis)]).catch(() => undefined);
    throw error;
  }
  // BullMQ blocks on its connection (maxRetriesPerRequest null) and does not close one it was given.
  const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
  const queueConnection = redis.duplicate({ maxRetriesPerRequest: null });
  const queue = createActivationQueue(queueConnection, config.REDIS_PREFIX);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const transitions = new Counter({
    name: 'switchyard_runner_runs_total',
    help: 'Run status changes made by this runner (running and each ending), with the reason',
    labelNames: ['status', 'reason'],
    registers: [registry],
  });
  const delays = new Counter({ name: 'switchyard_runner_delays_total', help: 'Jobs put back because their agent was busy or they were not first in line', registers: [registry] });
  const runner = new Runner({
    store: new SqlRunStore(prisma),
    slots: new RedisAgentSlots(redis, config.REDIS_PREFIX),
    executor: new ProviderExecutor({ scripted: new ScriptedExecutor() }),
    emitter: new RedisIngestWriter(redis, config.REDIS_PREFIX, toKey(config.REDIS_PREFIX, STREAMS.ingest), config.IDEMPOTENCY_TTL_SECONDS),
    waker: new BullmqJobWaker(queue),
    log,
    leaseMs: config.RUNNER_LEASE_MS,
    backoff: {
      minMs: config.RUNNER_BACKOFF_MIN_MS,
      maxMs: Math.max(config.RUNNER_BACKOFF_MIN_MS, config.RUNNER_BACKOFF_MAX_MS),
      capMs: Math.max(config.RUNNER_BACKOFF_MAX_MS, config.RUNNER_BACKOFF_CAP_MS),
    },
    chainMax: config.RUNNER_CHAIN_MAX,
    metrics: { transitioned: (status, reason) => transitions.inc({ status, reason: reason ?? '' }), delayed: () => delays.inc() },
  });
  const worker = createActivationWorker({
    connection: workerConnection,
    prefix: config.REDIS_PREFIX,
    concurrency: config.RUNNER_CONCURRENCY,
    lockDuration: config.RUNNER_LOCK_DURATION_MS,
    stalledInterval: config.RUNNER_STALLED_INTERVAL_MS,
    maxStalledCount: config.RUNNER_MAX_STALLED_COUNT,
    handle: (job) => runner.handle(job),
    log,
  });
  await worker.waitUntilReady();
  const health = await startHealthServer({
    port: config.RUNNER_HEALTH_PORT,
    host: config.HOST,
    registry,
    checks: storeChecks(redis, prisma),
  });
  const sweeper = setInterval(() => {
    runner.sweep().catch((error: unknown) => log.warn({ err: error }, 'lost-run sweep failed'));
  }, config.RUNNER_SWEEP_INTERVAL_MS);
  sweeper.unref();
  log.info({ runner: config.RUNNER_NAME, concurrency: config.RUNNER_CONCURRENCY, healthPort: health.port }, 'runner started');
  const closeWorker = async () => {
    clearInterval(sweeper);
    runner.stop();
    // worker.close() waits for active jobs with no deadline of its own: past ours, abort the
    // runs (they end failed, runner_lost) and force the close.
    await Promise.race([worker.close(), deadline(config.RUNNER_CLOSE_TIMEOUT_MS)]);
    runner.abortAll('runner stopping');
    await worker.close(true);
  };
  return {
    healthPort: health.port,
    // Memoised: a second SIGTERM or an error path may call it again.
    close: once(() =>
      closeAll([closeWorker, health, () => queue.close(), () => closeRedis(workerConnection), () => closeRedis(queueConnection), () => prisma.$disconnect(), () => closeRedis(redis)]),
    ),
  };
}
