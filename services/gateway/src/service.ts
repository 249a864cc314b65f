import { SqlBackfillStore } from './adapters/sql-backfill-store';
import type { Server } from 'node:http';
import { PrismaCraftingStore } from './adapters/prisma-crafting-store';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { STREAMS } from '@switchyard/contracts';
import { AgentMessageStore, createPrismaClient, FactRecorder, flushFacts, readWorkspaceSecret, SqlFactStore, SqlPool } from '@switchyard/db';
import { ApprovalStore, RunWaker } from '@switchyard/runs';
import { actionSigningKey, MattermostRest } from '@switchyard/core';
import { Queue } from 'bullmq';
import { NOTIFICATIONS_QUEUE, QUEUES } from '@switchyard/contracts';
import { decideApproval } from './commands/decide-approval';
import type { RunResumer } from './run-ports';
import { RedisConfirmationNonces } from './adapters/redis-confirmation-nonces';
import { PrismaNotificationStore } from './adapters/prisma-notification-store';
import { PrismaOverviewReader } from './adapters/prisma-overview-reader';
import type { ApprovalDecisions } from './notification-ports';
import type { Logger } from '@switchyard/logging';
import { closeRedis, createActivationQueue, createRedis, duplicateRedis, RedisFactPublisher, RedisIngestWriter, RunNewsSubscriber, toKey } from '@switchyard/redis';
import { closeAll, type Closable, type ReadinessCheck, type RunningService, startService, storeChecks } from '@switchyard/runtime';
import type { Registry } from 'prom-client';
import { PrismaAgentStore } from './adapters/prisma-agent-store';
import { PrismaAgentBundleStore } from './adapters/prisma-agent-bundle-store';
import { PrismaAgentVersionStore } from './adapters/prisma-agent-version-store';
import { PrismaAgentUsageReader } from './adapters/prisma-agent-usage-reader';
import { PrismaOpsOverviewReader } from './adapters/prisma-ops-overview-reader';
import { PrismaAgentTokenStore } from './adapters/prisma-agent-token-store';
import { PrismaAuthStore } from './adapters/prisma-auth-store';
import { PrismaActivationReads } from './adapters/prisma-activation-reads';
import { PrismaFactReader } from './adapters/prisma-fact-reader';
import { PrismaAuditReader } from './adapters/prisma-audit-reader';
import { PrismaRunStore } from './adapters/prisma-run-store';
import { PrismaSecretStore } from './adapters/prisma-secret-store';
import { PrismaSettingsStore } from './adapters/prisma-settings-store';
import { PrismaSteeringStore } from './adapters/prisma-steering-store';
import { PrismaTryStore } from './adapters/prisma-try-store';
import { PrismaEvalStore } from './adapters/prisma-eval-store';
import { OpenAiEvalJudge } from './adapters/openai-eval-judge';
import { PrismaTranscriptReader } from './adapters/prisma-transcript-reader';
import { SqlTraceReader } from '@switchyard/traces';
import { PrismaUiSessionStore } from './adapters/prisma-ui-session-store';
import { PrismaMemberStore } from './adapters/prisma-member-store';
import { PrismaAccessLinkStore } from './adapters/prisma-access-link-store';
import { ssoFromConfig } from './sso-setup';
import { RedisMailbox } from './adapters/redis-mailbox';
import { PrismaCollaboratorStore } from './adapters/prisma-collaborator-store';
import { PrismaTaskStore } from './adapters/prisma-task-store';
import { PrismaTeammateStore } from './adapters/prisma-teammate-store';
import { createGatewayApp } from './app';
import { secretBoxOf } from '@switchyard/config';
import type { GatewayConfig } from './config';
import { createGatewayMetrics, type GatewayMetrics } from './http/metrics';
import { FactFeed } from './sse/fact-feed';
import { TokenRateLimiter } from './http/rate-limit';
import { PrismaWebhookStore } from './adapters/prisma-webhook-store';
import { PrismaScheduleStore } from './adapters/prisma-schedule-store';

/** A running gateway: the port it listens on, its health port (GATEWAY_HEALTH_PORT) and how to stop it. */
export type RunningGateway = RunningService & { port: number; host: string };

/** The gateway's app wired from its config, not listening yet, and what closing it releases. */
export interface BuiltGateway extends Closable {
  app: Express;
  metrics: GatewayMetrics;
  checks: Record<string, ReadinessCheck>;
}

/**
 * Wires the gateway's app from its config: stores, queue, feed, limiter, its
 * metrics on `registry` (startGateway passes the service's). startGateway
 * listens with it; a test may serve it in its own process.
 */
export function buildGateway(config: GatewayConfig, log: Logger, registry?: Registry): BuiltGateway {
  // First: a bad key combination stops start-up before any connection is opened.
  const secretBox = secretBoxOf(config);
  const redis = createRedis(config.REDIS_URL, { connectionName: 'gateway' });
  const prisma = createPrismaClient({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'gateway' });
  // The short raw-SQL hot paths — approvals' decisions (decision 0025), a teammate's delivery
  // and wake (decision 0035) — share one plain pool beside Prisma's, as large: every message
  // passes through it twice, and a smaller pool was the queue of a burst of messages.
  const sql = new SqlPool({
    databaseUrl: config.DATABASE_URL,
    poolMax: config.DATABASE_POOL_MAX,
    applicationName: 'gateway:sql',
    onPoolError: (error) => log.warn({ err: error }, 'idle database connection failed'),
  });
  const factsKey = toKey(config.REDIS_PREFIX, STREAMS.facts);
  const ingestKey = toKey(config.REDIS_PREFIX, STREAMS.ingest);
  const feed = new FactFeed(redis, factsKey, log);
  feed.start();
  // A connection of its own for the producer side of `activations`. BullMQ's
  // `maxRetriesPerRequest: null` is for blocking connections (workers); a
  // Queue only adds jobs, and BullMQ's advice for an HTTP API is to fail fast
  // while Redis is unreachable (`enableOfflineQueue: false`): the request then
  // answers 503 instead of hanging until Redis is back.
  // Subscriber mode takes a connection of its own: the runner's announcements of crafting turns' flushes (decision 0056).
  const newsConnection = duplicateRedis(redis, { connectionName: 'gateway:run-news' });
  const queueConnection = duplicateRedis(redis, { connectionName: 'gateway:activations', enableOfflineQueue: false, autoPipelining: false });
  const activationQueue = createActivationQueue(queueConnection, config.REDIS_PREFIX);
  activationQueue.on('error', (err) => log.warn({ err }, 'activations queue connection error'));
  const metrics = createGatewayMetrics(redis, { ingest: ingestKey, facts: factsKey }, registry);
  const checks = storeChecks(redis, prisma);
  const rateLimiter = new TokenRateLimiter({ redis, prefix: config.REDIS_PREFIX, perSecond: config.RATE_LIMIT_PER_SECOND });
  const webhookRateLimiter = new TokenRateLimiter({ redis, prefix: config.REDIS_PREFIX, perSecond: config.WEBHOOK_RATE_LIMIT_PER_SECOND });
  const notifications = new PrismaNotificationStore(prisma);
  const readSecret = secretBox ? (workspaceId: string, name: string) => readWorkspaceSecret(prisma, secretBox, workspaceId, name) : null;
  const mattermostRest = new MattermostRest({ allowPrivate: config.NOTIFICATIONS_ALLOW_PRIVATE, allowedHosts: config.NOTIFICATIONS_ALLOWED_HOSTS });
  const signingKeys = [config.SECRETS_KEY, ...config.SECRETS_KEY_PREVIOUS].filter((key): key is string => key !== undefined).map(actionSigningKey);
  // The dashboard's other queues, read and managed through the producer connection (they are the approvals' and the notifier's).
  const dashboardQueues = config.GATEWAY_ADMIN_TOKEN ? [QUEUES.approvalExpiry, NOTIFICATIONS_QUEUE].map((name) => new Queue(name, { connection: queueConnection, prefix: config.REDIS_PREFIX })) : [];
  const approvals = new ApprovalStore(sql, sql);
  // The one wake (decision 0044): new runs' jobs must be added (or the run fails), resumes' are left to the sweep when lost.
  const waker = new RunWaker(activationQueue, log);
  const resumer: RunResumer = { resume: (runs, key) => waker.wakeOrLeaveToSweep(runs, key) };
  // Buttons and `/switchyard approve|deny` decide through the same command as `POST …/approvals/{id}/decision`.
  const decisions: ApprovalDecisions = {
    decide: (principal, id, body, correlationId) => decideApproval({ approvals, resumer, log }, { principal, correlationId }, id, body),
  };
  const ingest = new RedisIngestWriter(redis, config.REDIS_PREFIX, ingestKey, config.IDEMPOTENCY_TTL_SECONDS);
  // A change a client may act on at once has its facts stored and published before the response (the event-log's relay's path).
  const recorder = new FactRecorder(new SqlFactStore(sql), new RedisFactPublisher(redis, factsKey, config.FACTS_MAXLEN));
  const outbox = {
    // The change is committed: a failed flush leaves its facts to the event-log's relay.
    flush: (ids: readonly string[]) => flushFacts(sql, recorder, log, ids).catch((error: unknown) => log.warn({ err: error }, 'facts not relayed at once; the event-log relays them')),
  };
  const uiSessions = new PrismaUiSessionStore(prisma);
  const sso = ssoFromConfig(config, { prisma, redis, sessions: uiSessions, outbox });
  const agentMessages = new AgentMessageStore(sql);
  // Contents past retention go; observations (hashes and metadata) stay. Every replica prunes a bounded batch.
  const prune = setInterval(() => {
    agentMessages.pruneContents(1_000).catch((error: unknown) => log.warn({ err: error }, 'agent-message contents not pruned'));
  }, 60_000);
  prune.unref();
  const userName = async (userId: string) => (await prisma.user.findUnique({ where: { id: userId }, select: { name: true } }))?.name ?? null;
  const app = createGatewayApp({
    outbox,
    authStore: new PrismaAuthStore(prisma),
    reader: new PrismaFactReader(prisma),
    audit: new PrismaAuditReader(prisma),
    activationReads: new PrismaActivationReads(prisma),
    agents: new PrismaAgentStore(prisma),
    agentVersions: new PrismaAgentVersionStore(prisma),
    agentBundles: new PrismaAgentBundleStore(prisma),
    agentUsage: new PrismaAgentUsageReader(prisma),
    opsOverview: new PrismaOpsOverviewReader(prisma),
    runs: new PrismaRunStore(prisma),
    teammates: new PrismaTeammateStore(prisma, sql),
    settings: new PrismaSettingsStore(prisma),
    secrets: new PrismaSecretStore(prisma),
    secretBox,
    transcripts: new PrismaTranscriptReader(prisma),
    traces: new SqlTraceReader(sql),
    steering: new PrismaSteeringStore(prisma),
    tries: new PrismaTryStore(prisma),
    evals: new PrismaEvalStore(prisma),
    evalJudge: config.EVAL_JUDGE_BASE_URL
      ? new OpenAiEvalJudge({ baseUrl: config.EVAL_JUDGE_BASE_URL, apiKey: config.EVAL_JUDGE_API_KEY, timeoutMs: config.EVAL_JUDGE_TIMEOUT_MS, prices: config.EVAL_JUDGE_PRICES })
      : null,
    mailbox: new RedisMailbox({ redis, prefix: config.REDIS_PREFIX }),
    activations: waker,
    approvals,
    resumer,
    ingest,
    feed,
    redis,
    prefix: config.REDIS_PREFIX,
    log,
    metrics,
    checks,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    rateLimiter,
    ratePerSecond: config.RATE_LIMIT_PER_SECOND,
    tokenCacheMs: config.TOKEN_CACHE_MS,
    agentTokens: new PrismaAgentTokenStore(prisma),
    mcpAllowedHosts: config.GATEWAY_MCP_ALLOWED_HOSTS,
    ticketTtlMs: config.STREAM_TICKET_TTL_MS,
    heartbeatMs: config.SSE_HEARTBEAT_MS,
    streamAuthRecheckMs: config.STREAM_AUTH_RECHECK_MS,
    maxCausationDepth: config.MAX_CAUSATION_DEPTH,
    tasks: new PrismaTaskStore(prisma),
    collaborators: new PrismaCollaboratorStore(prisma),
    uiSessions,
    sso,
    members: new PrismaMemberStore(prisma),
    accessLinks: new PrismaAccessLinkStore(prisma),
    publicUrl: config.PUBLIC_URL,
    uiSessionTtlSeconds: config.UI_SESSION_TTL_SECONDS,
    crafting: {
      model: config.CRAFT_MODEL ? { model: config.CRAFT_MODEL, ...(config.CRAFT_SCRIPT ? { script: config.CRAFT_SCRIPT } : {}) } : null,
      store: new PrismaCraftingStore(prisma),
      news: new RunNewsSubscriber(newsConnection, config.REDIS_PREFIX),
      pollMs: config.CRAFT_STREAM_POLL_MS,
    },
    notifications: {
      notifications,
      readSecret,
      mattermost: mattermostRest,
      outbound: { allowPrivate: config.NOTIFICATIONS_ALLOW_PRIVATE, allowedHosts: config.NOTIFICATIONS_ALLOWED_HOSTS },
      outbox,
      userName,
    },
    mattermost: {
      notifications,
      readSecret,
      signingKeys,
      decisions,
      mattermost: mattermostRest,
      nonces: new RedisConfirmationNonces(redis, config.REDIS_PREFIX),
      userName,
      overview: new PrismaOverviewReader(prisma),
      settings: new PrismaSettingsStore(prisma),
      outbox,
    },
    adminQueues: config.GATEWAY_ADMIN_TOKEN ? { token: config.GATEWAY_ADMIN_TOKEN, queues: [activationQueue, ...dashboardQueues] } : null,
    agentMessages,
    contentRetentionMs: config.AGENT_MESSAGE_CONTENT_RETENTION_MS,
    agentMessageStreamPollMs: config.AGENT_MESSAGE_STREAM_POLL_MS,
    schedules: new PrismaScheduleStore(prisma),
    backfills: new SqlBackfillStore(sql),
    webhooks: { store: new PrismaWebhookStore(prisma), allowUnsigned: config.WEBHOOK_ALLOW_UNSIGNED, rateLimiter: webhookRateLimiter, ratePerSecond: config.WEBHOOK_RATE_LIMIT_PER_SECOND },
  });
  return {
    app,
    metrics,
    checks,
    close: () =>
      closeAll([
        async () => clearInterval(prune),
        rateLimiter,
        webhookRateLimiter,
        feed,
        // The queue shares the connection it was given, so closing it leaves the connection to close here.
        activationQueue,
        ...dashboardQueues,
        () => closeRedis(queueConnection),
        () => closeRedis(newsConnection),
        () => prisma.$disconnect(),
        () => sql.$disconnect(),
        () => closeRedis(redis),
      ]),
  };
}

/** Wires the gateway from its config and starts listening, on the shape every service follows. */
export function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  // /metrics names streams, groups and routes: it is served on the health port only, not the public one.
  return startService({ name: 'gateway', healthPort: config.GATEWAY_HEALTH_PORT, host: config.HOST, log, startedMessage: 'gateway listening' }, async (service) => {
    const gateway = service.onClose(buildGateway(config, log, service.registry));
    service.check(gateway.checks);
    const server: Server = await new Promise((resolve, reject) => {
      const s = gateway.app.listen(config.PORT, config.HOST, () => resolve(s));
      s.once('error', reject);
    });
    service.onClose(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          // SSE connections never end by themselves.
          server.closeAllConnections();
        }),
    );
    return { port: (server.address() as AddressInfo).port, host: config.HOST };
  });
}
