import { FactsMessageSchema, GROUPS, STREAMS, type ActivationJob } from '@switchyard/contracts';
import { SqlDeadLetterStore, SqlPool } from '@switchyard/db';
import { BackfillBatches, RunWaker, SqlWaitBook } from '@switchyard/runs';
import { BackfillFeeder } from './backfill-feeder';
import { WaitResumer } from './wait-resumer';
import type { Logger } from '@switchyard/logging';
import {
  closeRedis,
  createActivationQueue,
  createRedis,
  duplicateRedis,
  lastErrorsKey,
  SessionMailbox,
  StreamConsumer,
  toKey,
} from '@switchyard/redis';
import { registerDeadLetterGauge, startService, storeChecks, type RunningService } from '@switchyard/runtime';
import { Counter } from 'prom-client';
import { ActivationGuards, type ActivationDecision } from './activation-guards';
import { AgentIndex } from './agent-index';
import type { MatcherConfig } from './config';
import { Matcher } from './matcher';
import { SqlMatcherStore } from './adapters/sql-matcher-store';
import { Reconciler } from './reconciler';
import { DelegationReturns } from './delegation-returns';
import { EventBridge } from './event-bridge';
import { SqlBridgeStore } from './adapters/sql-bridge-store';

/** A running matcher: its health port and how to stop it. */
export type RunningMatcher = RunningService & { consumer: string };

/**
 * Wires the matcher: creates its group on `facts` first (so nothing published
 * from now on is missed), reconciles from PostgreSQL (what happened before),
 * then consumes, on the shape every service follows. Used by main.ts and by
 * the one-process `npm start`.
 */
export function startMatcher(config: MatcherConfig, log: Logger): Promise<RunningMatcher> {
  return startService({ name: 'matcher', healthPort: config.MATCHER_HEALTH_PORT, host: config.HOST, log }, async (service) => {
    const redis = createRedis(config.REDIS_URL, { connectionName: 'matcher' });
    service.onClose(() => closeRedis(redis));
    const prisma = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'matcher' });
    service.onClose(() => prisma.$disconnect());
    service.check(storeChecks(redis, prisma));
    // The queue adds a batch's jobs in one write (addBulk), on a connection of its own: BullMQ's
    // scripts are defined on the connection it is given, and every pipeline of that connection
    // (the consumer's XACK + XREADGROUP) would copy them all (RedisConnectionOptions.autoPipelining).
    // BullMQ does not close a connection it was given.
    const queueConnection = duplicateRedis(redis, { connectionName: 'matcher:activations', autoPipelining: false });
    service.onClose(() => closeRedis(queueConnection));
    const queue = service.onClose(createActivationQueue(queueConnection, config.REDIS_PREFIX));
    const decisions = new Counter({
      name: 'switchyard_matcher_decisions_total',
      help: 'Matches by outcome: activate, skip or drop, with the reason',
      labelNames: ['action', 'reason'],
      registers: [service.registry],
    });
    const store = new SqlMatcherStore(prisma, log);
    // New runs' wakes: a lost one rejects and the batch is retried (decision 0044).
    const waker = new RunWaker(queue, log);
    const activations = { enqueue: (jobs: readonly ActivationJob[]) => waker.wake(jobs) };
    const factsKey = toKey(config.REDIS_PREFIX, STREAMS.facts);
    const deadLetters = new SqlDeadLetterStore(prisma);
    registerDeadLetterGauge(service.registry, deadLetters, [{ stream: factsKey, group: GROUPS.matcher }]);
    const deliveries = new Counter({
      name: 'switchyard_matcher_bridge_decisions_total',
      help: "Watched facts by outcome for teammates (the event bridge): activate (delivered) or skip, with the reason",
      labelNames: ['action', 'reason'],
      registers: [service.registry],
    });
    const counted = (counter: Counter) => ({ decided: (d: ActivationDecision) => counter.inc({ action: d.action, reason: 'reason' in d ? d.reason : '' }) });
    const guards = new ActivationGuards({ maxCausationDepth: config.MAX_CAUSATION_DEPTH });
    const mailbox = new SessionMailbox(redis, config.REDIS_PREFIX);
    const bridge = new EventBridge({ store: new SqlBridgeStore(prisma), mailbox, guards, activations, log, metrics: counted(deliveries) });
    const returns = new DelegationReturns({ sql: prisma, mailbox, log });
    const waits = new WaitResumer({ book: new SqlWaitBook(prisma), wake: (runs, key) => waker.wakeOrLeaveToSweep(runs, key), log });
    service.onClose(async () => waits.close());
    const feeder = new BackfillFeeder(new BackfillBatches(prisma, prisma), (runs) => waker.wakeOrLeaveToSweep(runs), log);
    service.onClose(async () => feeder.close());
    const matcher = new Matcher({ store, index: new AgentIndex(), guards, activations, bridge, returns, waits, log, metrics: counted(decisions) });
    service.onClose(() => matcher.saveUnsaved());
    const reconciler = new Reconciler(matcher, store, activations, log);
    const consumer = new StreamConsumer({
      redis,
      stream: factsKey,
      group: GROUPS.matcher,
      consumer: config.MATCHER_CONSUMER,
      deadLetters,
      lastErrorsKey: lastErrorsKey(config.REDIS_PREFIX, STREAMS.facts, GROUPS.matcher),
      decode: (raw) => FactsMessageSchema.parse(raw),
      handle: (entries) => matcher.handle(entries.map(({ message }) => ({ fact: message.fact, workspaceId: message.workspaceId }))),
      onGroupLost: () => reconciler.reconcile(),
      log,
      batchSize: config.MATCHER_BATCH,
      claimIdleMs: config.CLAIM_IDLE_MS,
      blockMs: Math.min(1000, Math.floor(config.CLAIM_IDLE_MS / 2)),
      maxDeliveries: config.MAX_DELIVERIES,
      startId: '$',
    });
    // The group's place is fixed before the reconcile reads PostgreSQL: every fact after it is consumed.
    await consumer.ensureGroup();
    // The group the delegation returns read before they joined the matcher's batches (decision 0032): gone.
    await redis.xgroup('DESTROY', factsKey, GROUPS.retiredDelegationReturns);
    await reconciler.start();
    service.onClose(consumer);
    await consumer.start();
    waits.start();
    feeder.start();
    return { consumer: config.MATCHER_CONSUMER };
  });
}
