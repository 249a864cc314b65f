import type { Express } from 'express';
import { createLogger } from '@switchyard/logging';
import { createTestDatabase, createTestRedis } from '@switchyard/testing';
import { loadGatewayConfig } from '../src/config';
import { buildGateway } from '../src/service';

/** The gateway's express app in the test's own process, and how to release what it holds. */
export interface InProcessGateway {
  app: Express;
  /** Its database (to create a workspace in it, as the admin command does). */
  databaseUrl: string;
  close(): Promise<void>;
}

/**
 * Why this exists: some guarantees are about the express app itself (which
 * routes it serves, compared with the OpenAPI document), which a gateway in a
 * child process cannot show. This builds the real app exactly as the service
 * does (buildGateway) on a database and Redis prefix of the test's own;
 * nothing here is faked.
 */
export async function createInProcessGateway(): Promise<InProcessGateway> {
  const db = await createTestDatabase();
  const redis = await createTestRedis();
  const config = loadGatewayConfig({ DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, LOG_LEVEL: 'silent' });
  const gateway = buildGateway(config, createLogger({ service: 'gateway-test', level: 'silent' }));
  return {
    app: gateway.app,
    databaseUrl: db.url,
    close: async () => {
      await gateway.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}
