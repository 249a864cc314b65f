import { SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { closeRedis, createActivationQueue, createRedis, once, type Redis } from '@switchyard/redis';
import { closeAll, startHealthServer, type Closable, storeChecks } from '@switchyard/runtime';
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { BullmqJobWaker, createActivationWorker } from './adapters/bullmq-activation-worker';
import { SqlRunStore } from './adapters/sql-run-store';
import { RedisAgentSlots } from './adapters/redis-agent-slots';
import type { RunnerConfig } from './config';
import { Runner } from './runner';
import { secretBoxOf } from '@switchyard/config';
import { resolveOutboundUrl } from '@switchyard/core';
import { SqlAgentTokens } from './adapters/sql-agent-tokens';
import { RedisMailbox } from './adapters/redis-mailbox';
import { SqlRunContextStore } from './adapters/sql-run-context';
import { SqlSecretReader } from './adapters/sql-secret-reader';
import { SqlSpendLedger } from './adapters/sql-spend-ledger';
import { SqlTranscriptStore } from './adapters/sql-transcript-store';
import { AgentLoop } from './loop/agent-loop';
import type { LoopMetrics } from './loop/loop-ports';
import { loopMetrics } from './metrics';
import { createModel } from './model/create-model';
import { createPriceTable } from './model/prices';
import { connectTools, toolHostOptions } from './tools';

/** A running runner: its health port and how to stop it. */
export interface RunningRunner extends Closable {
  healthPort: number;
}

/** Resolves after `ms` without keeping the process alive. */
function deadline(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The agent loop with the runner's stores, model settings and tool policy bound. */
function agentLoop(config: RunnerConfig, sql: SqlPool, redis: Redis, log: Logger, metrics: LoopMetrics): AgentLoop {
  const tools = toolHostOptions(config);
  // An agent's own model endpoint is checked like its MCP servers' URLs (the operator's is trusted).
  const checkBaseUrl = async (url: string) => void (await resolveOutboundUrl(url, { allowPrivate: tools.allowPrivate, allowedHosts: tools.allowedHosts }));
  return new AgentLoop({
    contexts: new SqlRunContextStore(sql),
    transcripts: new SqlTranscriptStore(sql),
    mailbox: new RedisMailbox(redis, config.REDIS_PREFIX),
    spend: new SqlSpendLedger(sql),
    secrets: new SqlSecretReader(sql, secretBoxOf(config)),
    prices: createPriceTable(config.MODEL_PRICES),
    model: (spec, input) => createModel(spec, { ...input, env: config, checkBaseUrl }),
    tools: (input) => connectTools({ ...input, options: tools, log }),
    platform: { url: config.PLATFORM_MCP_URL, tokens: new SqlAgentTokens(sql), tokenTtlMs: config.AGENT_TOKEN_TTL_MS },
    metrics,
    log,
  });
}

/**
 * Wires the runner: the BullMQ worker on `activations`, the run ledger, the
 * agent slots and the executors. Used by main.ts and by the one-process
 * `npm start`.
 */
export async function startRunner(config: RunnerConfig, log: Logger): Promise<RunningRunner> {
  const redis = createRedis(config.REDIS_URL, { connectionName: `runner:${config.RUNNER_NAME}` });
  const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'runner' });
  try {
    // Fail start-up, not a later job, when a store does not answer (BullMQ's own
    // connection would wait for Redis for ever).
    await redis.ping();
    await sql.$queryRawUnsafe('SELECT 1');
  } catch (error) {
    await closeAll([() => sql.$disconnect(), () => closeRedis(redis)]).catch(() => undefined);
    throw error;
  }
  // BullMQ blocks on its connection (maxRetriesPerRequest null) and does not close one it was given.
  const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
  // The queue (withdrawing, waking and reviving jobs; it never blocks) shares the runner's
  // connection: a withdrawal goes out in the same pipelined write as the run's `started` fact
  // and its slot hand-over (decision 0017).
  const queue = createActivationQueue(redis, config.REDIS_PREFIX);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const transitions = new Counter({
    name: 'switchyard_runner_runs_total',
    help: 'Run status changes made by this runner (running and every ending: completed, failed with its code, cancelled, runner_lost), with the reason',
    labelNames: ['status', 'reason'],
    registers: [registry],
  });
  const delays = new Counter({ name: 'switchyard_runner_delays_total', help: 'Jobs put back because their agent was busy or they were not first in line', registers: [registry] });
  const opened = new Counter({ name: 'switchyard_runner_lanes_opened_total', help: 'Lanes opened beside the jobs\' for runs waiting behind a claimed one (RUNNER_OPEN_LANES)', registers: [registry] });
  const runner = new Runner({
    store: new SqlRunStore(sql),
    slots: new RedisAgentSlots(redis, config.REDIS_PREFIX),
    executor: agentLoop(config, sql, redis, log, loopMetrics(registry)),
    waker: new BullmqJobWaker(queue, redis),
    log,
    leaseMs: config.RUNNER_LEASE_MS,
    backoff: {
      minMs: config.RUNNER_BACKOFF_MIN_MS,
      maxMs: Math.max(config.RUNNER_BACKOFF_MIN_MS, config.RUNNER_BACKOFF_MAX_MS),
      capMs: Math.max(config.RUNNER_BACKOFF_MAX_MS, config.RUNNER_BACKOFF_CAP_MS),
    },
    chainMax: config.RUNNER_CHAIN_MAX,
    openLanes: config.RUNNER_OPEN_LANES,
    metrics: { transitioned: (status, reason) => transitions.inc({ status, reason: reason ?? '' }), delayed: () => delays.inc(), laneOpened: () => opened.inc() },
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
    checks: storeChecks(redis, sql),
  });
  const sweeper = setInterval(() => {
    runner.sweep().catch((error: unknown) => log.warn({ err: error }, 'run sweep failed'));
  }, config.RUNNER_SWEEP_INTERVAL_MS);
  sweeper.unref();
  log.info({ runner: config.RUNNER_NAME, concurrency: config.RUNNER_CONCURRENCY, healthPort: health.port }, 'runner started');
  const closeWorker = async () => {
    clearInterval(sweeper);
    runner.stop();
    // worker.close() waits for active jobs with no deadline of its own: past ours, abort the
    // runs (they end failed, runner_lost) and force the close. The lanes opened beside the
    // jobs' are waited for alike, before the connections they use are closed.
    await Promise.race([Promise.all([worker.close(), runner.settled()]), deadline(config.RUNNER_CLOSE_TIMEOUT_MS)]);
    runner.abortAll('runner stopping');
    await worker.close(true);
    await Promise.race([runner.settled(), deadline(config.RUNNER_CLOSE_TIMEOUT_MS)]);
  };
  return {
    healthPort: health.port,
    // Memoised: a second SIGTERM or an error path may call it again.
    close: once(() =>
      closeAll([closeWorker, health, () => queue.close(), () => closeRedis(workerConnection), () => sql.$disconnect(), () => closeRedis(redis)]),
    ),
  };
}
