import { AgentMessageStore, SqlPool } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { closeRedis, createActivationQueue, createRedis, duplicateRedis, ProviderRateLimits, RunNewsPublisher, SessionMailbox, type Redis } from '@switchyard/redis';
import { type RunningService, startService, storeChecks } from '@switchyard/runtime';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ActivationBackPressure, createActivationWorker } from './adapters/bullmq-activation-worker';
import { BullmqStartGate } from './adapters/bullmq-start-gate';
import { SqlApprovalRecords } from './adapters/sql-approval-records';
import { SqlApprovalParking, SqlRunQueue, SqlSpendLedger, SqlWaitBook, SqlWaitParking } from '@switchyard/runs';
import { SqlRunReads } from './adapters/sql-run-reads';
import { SqlStepBatch } from './adapters/sql-step-batch';
import type { RunnerConfig } from './config';
import { Runner } from './runner';
import { secretBoxOf } from '@switchyard/config';
import { SqlAgentTokens } from './adapters/sql-agent-tokens';
import { RedisMailbox } from './adapters/redis-mailbox';
import { SqlRunContextStore } from './adapters/sql-run-context';
import { SqlSecretReader } from './adapters/sql-secret-reader';
import { SqlTeammateWakes } from './adapters/sql-teammate-wakes';
import { SqlTranscriptStore } from './adapters/sql-transcript-store';
import { AgentLoop } from './loop/agent-loop';
import type { WaitRecords } from './loop/loop-ports';
import { loopMetrics, rateLimitMetrics } from './metrics';
import { createModel } from './model/create-model';
import { createModelHttpPool, type ModelHttpPool } from './model/model-http-pool';
import { runnerCapacity } from './runner-capacity';
import { isFollowedRun } from './followed-run';
import { capHeapGrowth } from './heap-growth';
import { modelEndpointCheck } from './model/model-endpoint';
import { createPriceTable } from './model/prices';
import { connectTools, McpHttpPool, ToolListCache, toolHostOptions } from './tools';

/** Hooks of startRunner for test fixtures only; main.ts passes none. */
export interface RunnerHooks {
  /** Called right after a run's ending was committed (fault injection: a fixture exits here). */
  afterEnding?: (runId: string) => void;
  /** Awaited before a run's ending is written (fault injection: a fixture holds a run there and dies). */
  beforeEnding?: (run: { id: string; agentId: string }) => Promise<void>;
}

/** A running runner: its health port, its name and how to stop it. */
export type RunningRunner = RunningService & { runner: string; concurrency: number };

/** Age from which the sweep claims a lane's queued runs (their job was lost) and wakes an open teammate mailbox no turn holds. */
const SWEEP_QUEUED_AFTER_MS = 5000;

/** Resolves after `ms` without keeping the process alive. */
function deadline(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** What the runs of a process share: the model's and the MCP servers' sockets, the step boundaries' statements. */
interface SharedByRuns {
  pool: ModelHttpPool;
  mcpPool: McpHttpPool;
  batch: SqlStepBatch;
  /** Announces a followed run's flushes and ending (decision 0056). */
  news: RunNewsPublisher;
}

/** The agent loop with the runner's stores, model settings and tool policy bound. */
function agentLoop(config: RunnerConfig, sql: SqlPool, redis: Redis, log: Logger, registry: Registry, teammates: SqlTeammateWakes, { pool, mcpPool, batch, news }: SharedByRuns): AgentLoop {
  const tools = toolHostOptions(config);
  // One per runner: the tool lists its runs are offered (a run connects a server at its first call).
  const listings = new ToolListCache({ ttlMs: config.RUNNER_MCP_TOOL_LIST_TTL_MS });
  // An agent's own model endpoint is checked with the models' settings (the operator's is trusted).
  const checkBaseUrl = modelEndpointCheck(config);
  const transcripts = new SqlTranscriptStore(sql, batch, news);
  // The provider keys' rate limits, shared with every other runner (decision 0060).
  const rateBuckets = new ProviderRateLimits(redis, config.REDIS_PREFIX);
  const rateMetrics = rateLimitMetrics(registry);
  return new AgentLoop({
    contexts: new SqlRunContextStore(sql),
    transcripts,
    memory: transcripts,
    mailbox: new RedisMailbox(redis, config.REDIS_PREFIX),
    spend: new SqlSpendLedger(sql),
    secrets: new SqlSecretReader(sql, secretBoxOf(config)),
    prices: createPriceTable(config.MODEL_PRICES),
    model: (spec, input) => createModel(spec, { ...input, env: config, checkBaseUrl, pool, rateBuckets, rateLimits: config, rateMetrics }),
    tools: (input) => connectTools({ ...input, options: tools, listings, log, pool: mcpPool }),
    platform: { url: config.PLATFORM_MCP_URL, tokens: new SqlAgentTokens(sql), tokenTtlMs: config.AGENT_TOKEN_TTL_MS },
    approvals: new SqlApprovalRecords(sql),
    waits: waitRecords(sql),
    peerNotes: new AgentMessageStore(sql),
    teammates,
    guardedTools: config.RUNNER_GUARDED_TOOLS,
    ...(config.RUNNER_MAX_RUN_DURATION_MS === undefined ? {} : { maxDurationMs: config.RUNNER_MAX_RUN_DURATION_MS }),
    metrics: loopMetrics(registry),
    log,
  });
}

/**
 * Wires the runner on the shape every service follows (startService): the
 * BullMQ worker on `activations` (wake-ups), the run queue in PostgreSQL and
 * the executors. Used by main.ts and by the one-process `npm start`.
 */
export function startRunner(config: RunnerConfig, log: Logger, hooks: RunnerHooks = {}): Promise<RunningRunner> {
  return startService({ name: 'runner', healthPort: config.RUNNER_HEALTH_PORT, host: config.HOST, log }, async (service) => {
    capHeapGrowth(config.RUNNER_HEAP_GROWING_PERCENT);
    const redis = createRedis(config.REDIS_URL, { connectionName: `runner:${config.RUNNER_NAME}` });
    service.onClose(() => closeRedis(redis));
    const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'runner', connectionTimeoutMillis: config.RUNNER_DATABASE_WAIT_MS });
    service.onClose(() => sql.$disconnect());
    const leases = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: 1, applicationName: 'runner:leases' });
    service.onClose(() => leases.$disconnect());
    // Fail start-up, not a later job, when a store does not answer (BullMQ's own
    // connection would wait for Redis for ever).
    await redis.ping();
    await sql.$queryRawUnsafe('SELECT 1');
    service.check(storeChecks(redis, sql));
    // BullMQ blocks on its connection (maxRetriesPerRequest null) and does not close one it was given.
    // Its scripts are defined on this connection only, and it is not auto-pipelined (RedisConnectionOptions.autoPipelining).
    const workerConnection = duplicateRedis(redis, { maxRetriesPerRequest: null, autoPipelining: false });
    service.onClose(() => closeRedis(workerConnection));
    const transitions = new Counter({
      name: 'switchyard_runner_runs_total',
      help: 'Run status changes made by this runner (running and every ending: completed, failed with its code, cancelled, runner_lost), with the reason',
      labelNames: ['status', 'reason'],
      registers: [service.registry],
    });
    const capacity = runnerCapacity(config.RUNNER_CONCURRENCY);
    // One pool of model connections per host for every run of the process (decision 0053).
    const pool = createModelHttpPool({ connectionsPerHost: config.RUNNER_MODEL_CONNECTIONS ?? capacity });
    service.onClose(() => pool.close());
    // And one pool of sockets per MCP server host (decision 0053).
    const mcpPool = new McpHttpPool({ connectionsPerHost: config.RUNNER_MCP_CONNECTIONS ?? capacity });
    service.onClose(async () => mcpPool.close());
    const backPressure = new ActivationBackPressure(log);
    // Claims admit runs: on connections of their own, never behind the statements of the runs in flight (decision 0053).
    const claims = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: 4, applicationName: 'runner:claims', connectionTimeoutMillis: config.RUNNER_DATABASE_WAIT_MS });
    service.onClose(() => claims.$disconnect());
    const queueOptions = { owner: config.RUNNER_NAME, leaseMs: config.RUNNER_LEASE_MS, leases, claims };
    // A mailbox open this long with no turn lost its wake: as long as a queued run waits for its job.
    const teammates = new SqlTeammateWakes(sql, new SessionMailbox(redis, config.REDIS_PREFIX), SWEEP_QUEUED_AFTER_MS);
    // Read only for its pause flag: the operator's dashboard pause stops run starts by every path (decision 0043).
    // On a connection of its own, failing fast while Redis is away (the gate then counts as paused), not auto-pipelined.
    const gateConnection = duplicateRedis(redis, { connectionName: `runner:${config.RUNNER_NAME}:gate`, autoPipelining: false });
    service.onClose(() => closeRedis(gateConnection));
    const activations = createActivationQueue(gateConnection, config.REDIS_PREFIX);
    service.onClose(() => activations.close());
    // The runs' step boundaries, flushes and stop reads of every run at once, one statement (group commit).
    const batch = new SqlStepBatch(sql);
    const news = new RunNewsPublisher(redis, config.REDIS_PREFIX, (error) => log.warn({ err: error }, 'run news not published'));
    const runner = new Runner({
      gate: new BullmqStartGate(activations, log),
      queue: new SqlRunQueue(sql, queueOptions),
      parking: new SqlApprovalParking(sql, queueOptions),
      waitParking: new SqlWaitParking(sql, queueOptions),
      reads: new SqlRunReads(sql, batch),
      executor: agentLoop(config, sql, redis, log, service.registry, teammates, { pool, mcpPool, batch, news }),
      orphans: teammates,
      sweepQueuedAfterMs: SWEEP_QUEUED_AFTER_MS,
      log,
      concurrency: capacity,
      onFull: (full) => backPressure.set(full),
      leaseMs: config.RUNNER_LEASE_MS,
      metrics: { transitioned: (status, reason) => transitions.inc({ status, reason: reason ?? '' }) },
      afterEnding: (run) => {
        // Its follower (a crafting answer) reads the ending now, not at its next poll; no other run has one.
        if (isFollowedRun(run.context)) news.publish(run.id);
        hooks.afterEnding?.(run.id);
      },
      beforeEnding: hooks.beforeEnding,
    });
    const worker = createActivationWorker({
      connection: workerConnection,
      prefix: config.REDIS_PREFIX,
      concurrency: config.RUNNER_CLAIM_CONCURRENCY,
      lockDuration: config.RUNNER_LOCK_DURATION_MS,
      stalledInterval: config.RUNNER_STALLED_INTERVAL_MS,
      maxStalledCount: config.RUNNER_MAX_STALLED_COUNT,
      handle: (job) => runner.handle(job),
      log,
    });
    backPressure.attach(worker);
    new Gauge({ name: 'switchyard_runner_runs_in_flight', help: 'Runs this process executes now (most wait on a model or a tool)', registers: [service.registry], collect() {
      this.set(runner.inFlight());
    } });
    new Gauge({ name: 'switchyard_runner_capacity', help: 'Runs this process holds in flight at most (RUNNER_CONCURRENCY or sized from the machine)', registers: [service.registry] }).set(capacity);
    const sweeper = setInterval(() => {
      runner.sweep().catch((error: unknown) => log.warn({ err: error }, 'run sweep failed'));
    }, config.RUNNER_SWEEP_INTERVAL_MS);
    sweeper.unref();
    // Registered last, so it closes first: no new claims; the runs in progress get
    // RUNNER_CLOSE_TIMEOUT_MS to end, then are aborted (they end failed, runner_lost) before
    // the connections they use are closed.
    service.onClose(async () => {
      clearInterval(sweeper);
      runner.stop();
      await Promise.race([Promise.all([worker.close(), runner.settled()]), deadline(config.RUNNER_CLOSE_TIMEOUT_MS)]);
      runner.abortAll('runner stopping');
      await worker.close(true);
      await Promise.race([runner.settled(), deadline(config.RUNNER_CLOSE_TIMEOUT_MS)]);
      runner.close();
    });
    await worker.waitUntilReady();
    return { runner: config.RUNNER_NAME, concurrency: capacity };
  });
}

/** What the loop reads of its waits (decision 0055): the workspace's seq at the call, a wait's outcome after the resume. */
function waitRecords(sql: SqlPool): WaitRecords {
  const parking = new SqlWaitParking(sql, { owner: 'reads', leaseMs: 0 });
  const book = new SqlWaitBook(sql);
  return { currentSeq: (workspaceId) => parking.currentSeq(workspaceId), outcome: (runId, toolCallId) => book.outcome(runId, toolCallId) };
}
