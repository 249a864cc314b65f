import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STREAMS } from '@switchyard/contracts';
import { createPrismaClient } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { closeRedis, createRedis, toKey } from '@switchyard/redis';
import { closeAll, type Closable } from '@switchyard/runtime';
import { PrismaAgentStore } from './adapters/prisma-agent-store';
import { PrismaAuthStore } from './adapters/prisma-auth-store';
import { PrismaFactReader } from './adapters/prisma-fact-reader';
import { RedisIngestWriter } from './adapters/redis-ingest-writer';
import { createGatewayApp } from './app';
import type { GatewayConfig } from './config';
import { createGatewayMetrics } from './http/metrics';
import { FactFeed } from './sse/fact-feed';
import { TokenRateLimiter } from './http/rate-limit';

/** A running gateway: the port it listens on and how to stop it. */
export interface RunningGateway extends Closable {
  port: number;
}

/** Wires the gateway from its config and starts listening. */
export async function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  const redis = createRedis(config.REDIS_URL, { connectionName: 'gateway' });
  const prisma = createPrismaClient({ databaseUrl: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX });
  const factsKey = toKey(config.REDIS_PREFIX, STREAMS.facts);
  const ingestKey = toKey(config.REDIS_PREFIX, STREAMS.ingest);
  const feed = new FactFeed(redis, factsKey, log);
  feed.start();
  const rateLimiter = new TokenRateLimiter({ redis, prefix: config.REDIS_PREFIX, perSecond: config.RATE_LIMIT_PER_SECOND });
  const app = createGatewayApp({
    authStore: new PrismaAuthStore(prisma),
    reader: new PrismaFactReader(prisma),
    agents: new PrismaAgentStore(prisma),
    ingest: new RedisIngestWriter(redis, config.REDIS_PREFIX, ingestKey, config.IDEMPOTENCY_TTL_SECONDS),
    feed,
    redis,
    prefix: config.REDIS_PREFIX,
    log,
    metrics: createGatewayMetrics(redis, { ingest: ingestKey, facts: factsKey }),
    checks: {
      redis: async () => void (await redis.ping()),
      postgres: async () => void (await prisma.$queryRawUnsafe('SELECT 1')),
    },
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    rateLimiter,
    ratePerSecond: config.RATE_LIMIT_PER_SECOND,
    tokenCacheMs: config.TOKEN_CACHE_MS,
    ticketTtlMs: config.STREAM_TICKET_TTL_MS,
    heartbeatMs: config.SSE_HEARTBEAT_MS,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(config.PORT, config.HOST, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ port, host: config.HOST }, 'gateway listening');
  const stopServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // SSE connections never end by themselves.
      server.closeAllConnections();
    });
  return { port, close: () => closeAll([stopServer, rateLimiter, feed, () => prisma.$disconnect(), () => closeRedis(redis)]) };
}
