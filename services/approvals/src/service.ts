import { FactsMessageSchema, GROUPS, STREAMS } from '@switchyard/contracts';
import { SqlDeadLetterStore, SqlPool } from '@switchyard/db';
import { ApprovalStore, resumeHeldWaits, RunWaker } from '@switchyard/runs';
import type { Logger } from '@switchyard/logging';
import {
  closeRedis,
  createActivationQueue,
  createApprovalExpiryQueue,
  createApprovalExpiryWorker,
  createRedis,
  duplicateRedis,
  lastErrorsKey,
  scheduleApprovalExpiries,
  StreamConsumer,
  toKey,
} from '@switchyard/redis';
import { registerDeadLetterGauge, startService, storeChecks, type RunningService } from '@switchyard/runtime';
import { Counter } from 'prom-client';
import { ApprovalKeeper } from './approval-keeper';
import type { ApprovalsConfig } from './config';

/** A running approvals service: its health port, its consumer name and how to stop it. */
export type RunningApprovals = RunningService & { consumer: string };

const deadline = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Wires the approvals service (decision 0025) on the shape every service
 * follows: its group on `facts` (expiries to schedule, workspaces unpaused),
 * the worker on `approval-expiry`, and the sweep. Used by main.ts and by the
 * one-process `npm start`.
 */
export function startApprovals(config: ApprovalsConfig, log: Logger): Promise<RunningApprovals> {
  return startService({ name: 'approvals', healthPort: config.APPROVALS_HEALTH_PORT, host: config.HOST, log }, async (service) => {
    const redis = createRedis(config.REDIS_URL, { connectionName: 'approvals' });
    service.onClose(() => closeRedis(redis));
    // Raw SQL and short transactions on a plain pool: every change of an approval is one (decision 0025).
    const sql = new SqlPool({
      databaseUrl: config.DATABASE_URL,
      poolMax: config.DATABASE_POOL_MAX,
      applicationName: 'approvals',
      onPoolError: (error) => log.warn({ err: error }, 'idle database connection failed'),
    });
    service.onClose(() => sql.$disconnect());
    // Fail start-up, not a later job, when a store does not answer.
    await redis.ping();
    await sql.$queryRawUnsafe('SELECT 1');
    service.check(storeChecks(redis, sql));
    // BullMQ blocks on a worker's connection (maxRetriesPerRequest null) and does not close one it was given.
    const workerConnection = duplicateRedis(redis, { maxRetriesPerRequest: null, connectionName: 'approvals:expiry', autoPipelining: false });
    service.onClose(() => closeRedis(workerConnection));
    // The queues' own connection: BullMQ's scripts are defined on it, and it is not auto-pipelined (RedisConnectionOptions.autoPipelining).
    const queueConnection = duplicateRedis(redis, { connectionName: 'approvals:queues', autoPipelining: false });
    service.onClose(() => closeRedis(queueConnection));
    const expiryQueue = service.onClose(createApprovalExpiryQueue(queueConnection, config.REDIS_PREFIX));
    const waker = new RunWaker(service.onClose(createActivationQueue(queueConnection, config.REDIS_PREFIX)), log);
    const counter = (name: string, help: string) => new Counter({ name, help, registers: [service.registry] });
    const expired = counter('switchyard_approvals_expired_total', 'Approvals this process expired');
    const resumed = counter('switchyard_approvals_runs_resumed_total', 'Parked runs this process resumed (expiries, unpaused workspaces, sweeps)');
    const keeper = new ApprovalKeeper({
      records: new ApprovalStore(sql, sql),
      waits: { resumeHeld: (workspaceId, limit) => resumeHeldWaits(sql, sql, workspaceId, limit) },
      expiries: { schedule: (items) => scheduleApprovalExpiries(expiryQueue, items) },
      resumer: { resume: (runs, key) => waker.wakeOrLeaveToSweep(runs, key) },
      log,
      metrics: { expired: (n) => expired.inc(n), resumed: (n) => resumed.inc(n) },
    });
    const factsKey = toKey(config.REDIS_PREFIX, STREAMS.facts);
    const deadLetters = new SqlDeadLetterStore(sql);
    registerDeadLetterGauge(service.registry, deadLetters, [{ stream: factsKey, group: GROUPS.approvals }]);
    const consumer = new StreamConsumer({
      redis,
      stream: factsKey,
      group: GROUPS.approvals,
      consumer: config.APPROVALS_CONSUMER,
      deadLetters,
      lastErrorsKey: lastErrorsKey(config.REDIS_PREFIX, STREAMS.facts, GROUPS.approvals),
      decode: (raw) => FactsMessageSchema.parse(raw),
      handle: (entries) => keeper.handleFacts(entries.map((entry) => entry.message)),
      // Facts Redis lost are covered by the sweep: it expires what is due and resumes what is ready.
      log,
      claimIdleMs: config.CLAIM_IDLE_MS,
      blockMs: Math.min(1000, Math.floor(config.CLAIM_IDLE_MS / 2)),
      maxDeliveries: config.MAX_DELIVERIES,
      startId: '$',
    });
    service.onClose(consumer);
    await consumer.start();
    const worker = createApprovalExpiryWorker({
      connection: workerConnection,
      prefix: config.REDIS_PREFIX,
      concurrency: config.APPROVALS_EXPIRY_CONCURRENCY,
      handle: (job) => keeper.expire(job.approvalId),
      log,
    });
    let sweeping: Promise<void> = Promise.resolve();
    const sweeper = setInterval(() => {
      sweeping = keeper.sweep().catch((error: unknown) => log.warn({ err: error }, 'approvals sweep failed'));
    }, config.APPROVALS_SWEEP_INTERVAL_MS);
    sweeper.unref();
    // Registered last, so it closes first: no new jobs or sweeps, the jobs in progress get
    // APPROVALS_CLOSE_TIMEOUT_MS (an interrupted one is a stalled job: BullMQ runs it again).
    service.onClose(async () => {
      clearInterval(sweeper);
      await Promise.race([Promise.all([worker.close(), sweeping]), deadline(config.APPROVALS_CLOSE_TIMEOUT_MS)]);
      await worker.close(true);
    });
    await worker.waitUntilReady();
    // Whatever is due from before this start is expired now rather than a sweep interval later.
    sweeping = keeper.sweep().catch((error: unknown) => log.warn({ err: error }, 'approvals sweep failed'));
    return { consumer: config.APPROVALS_CONSUMER };
  });
}
