import { createServer } from 'node:net';
import { Client } from 'pg';
import { createPrismaClient } from '@switchyard/db';
import { createRedis, duplicateRedis } from '@switchyard/redis';
import { isRedisUnavailable, isStoreUnavailable } from '@switchyard/core';

/** A port nothing listens on right now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const errorOf = async (work: () => Promise<unknown>) => work().then(() => undefined, (error: unknown) => error);

/**
 * Issue 13: the errors the real clients raise when their server is not
 * there — ioredis (retries exhausted, offline queue off), pg and Prisma over
 * @prisma/adapter-pg — are recognised as "unavailable" (503), and ordinary
 * errors are not.
 */
describe('isStoreUnavailable and isRedisUnavailable', () => {
  it('recognises ioredis with its retries exhausted and with its offline queue off', async () => {
    const port = await closedPort();
    const retrying = createRedis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
    const offline = duplicateRedis(retrying, { enableOfflineQueue: false });
    try {
      const [exhausted, refused] = [await errorOf(() => retrying.set('k', 'v')), await errorOf(() => offline.set('k', 'v'))];
      expect(isStoreUnavailable(exhausted)).toBe(true);
      expect(isStoreUnavailable(refused)).toBe(true);
      // The runner retries a step on these (decision 0051).
      expect(isRedisUnavailable(exhausted)).toBe(true);
      expect(isRedisUnavailable(refused)).toBe(true);
    } finally {
      retrying.disconnect();
      offline.disconnect();
    }
  });

  it('recognises pg and Prisma refused connections', async () => {
    const url = `postgresql://postgres@127.0.0.1:${await closedPort()}/nowhere`;
    const refused = await errorOf(() => new Client({ connectionString: url }).connect());
    expect(isStoreUnavailable(refused)).toBe(true);
    // Not Redis: a step does not retry on PostgreSQL (a failed flush must not be followed by more).
    expect(isRedisUnavailable(refused)).toBe(false);
    const prisma = createPrismaClient({ databaseUrl: url, poolMax: 1 });
    try {
      expect(isStoreUnavailable(await errorOf(() => prisma.$queryRawUnsafe('SELECT 1')))).toBe(true);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('does not take other errors for an outage', () => {
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
    const cyclic: { cause?: unknown } = new Error('loop');
    cyclic.cause = cyclic;
    expect(isStoreUnavailable(cyclic)).toBe(false);
  });
});
