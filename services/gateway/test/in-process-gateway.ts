import type { Express } from 'express';
import { STREAMS } from '@switchyard/contracts';
import { createPrismaClient } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { closeRedis, createActivationQueue, enqueueActivations, RedisIngestWriter, toKey } from '@switchyard/redis';
import { storeChecks } from '@switchyard/runtime';
import { createTestDatabase, createTestRedis } from '@switchyard/testing';
import { PrismaAgentStore } from '../src/adapters/prisma-agent-store';
import { PrismaAgentTokenStore } from '../src/adapters/prisma-agent-token-store';
import { PrismaAuthStore } from '../src/adapters/prisma-auth-store';
import { PrismaFactReader } from '../src/adapters/prisma-fact-reader';
import { PrismaRunStore } from '../src/adapters/prisma-run-store';
import { PrismaSecretStore } from '../src/adapters/prisma-secret-store';
import { PrismaSettingsStore } from '../src/adapters/prisma-settings-store';
import { PrismaSteeringStore } from '../src/adapters/prisma-steering-store';
import { PrismaTranscriptReader } from '../src/adapters/prisma-transcript-reader';
import { RedisMailbox } from '../src/adapters/redis-mailbox';
import { createGatewayApp } from '../src/app';
import { createGatewayMetrics } from '../src/http/metrics';
import { TokenRateLimiter } from '../src/http/rate-limit';
import { FactFeed } from '../src/sse/fact-feed';

/** The gateway's express app in the test's own process, and how to release what it holds. */
export interface InProcessGateway {
  app: Express;
  close(): Promise<void>;
}

/**
 * Why this exists: some guarantees are about the express app itself (which
 * routes it serves, compared with the OpenAPI document), which a gateway in a
 * child process cannot show. This builds the real app with the real adapters
 * on a database and Redis prefix of the test's own, wired as `service.ts`
 * wires them; nothing here is faked.
 */
export async function createInProcessGateway(): Promise<InProcessGateway> {
  const db = await createTestDatabase();
  const { redis, prefix, cleanup } = await createTestRedis();
  const prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  const log = createLogger({ service: 'gateway-test', level: 'silent' });
  const factsKey = toKey(prefix, STREAMS.facts);
  const ingestKey = toKey(prefix, STREAMS.ingest);
  const rateLimiter = new TokenRateLimiter({ redis, prefix, perSecond: 1000 });
  const feed = new FactFeed(redis, factsKey, log);
  const queueConnection = redis.duplicate({ connectionName: 'test:activations', enableOfflineQueue: false });
  const activationQueue = createActivationQueue(queueConnection, prefix);
  const app = createGatewayApp({
    authStore: new PrismaAuthStore(prisma),
    reader: new PrismaFactReader(prisma),
    agents: new PrismaAgentStore(prisma),
    runs: new PrismaRunStore(prisma),
    settings: new PrismaSettingsStore(prisma),
    secrets: new PrismaSecretStore(prisma),
    secretBox: null,
    transcripts: new PrismaTranscriptReader(prisma),
    steering: new PrismaSteeringStore(prisma),
    mailbox: new RedisMailbox({ redis, prefix }),
    activations: { enqueue: (jobs) => enqueueActivations(activationQueue, jobs) },
    ingest: new RedisIngestWriter(redis, prefix, ingestKey, 3600),
    feed,
    redis,
    prefix,
    log,
    metrics: createGatewayMetrics(redis, { ingest: ingestKey, facts: factsKey }),
    checks: storeChecks(redis, prisma),
    bodyLimitBytes: 1024 * 1024,
    rateLimiter,
    ratePerSecond: 1000,
    tokenCacheMs: 5000,
    agentTokens: new PrismaAgentTokenStore(prisma),
    mcpAllowedHosts: ['localhost', '127.0.0.1'],
    ticketTtlMs: 30_000,
    heartbeatMs: 15_000,
    maxCausationDepth: 8,
  });
  return {
    app,
    close: async () => {
      await rateLimiter.close();
      await feed.close();
      await activationQueue.close();
      await closeRedis(queueConnection);
      await prisma.$disconnect();
      await cleanup();
      await db.drop();
    },
  };
}
