import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createRedis } from '@switchyard/redis';
import { databaseServerUrl, redisUrl } from '@switchyard/testing';
import { bareWake } from '../lib/bare-wake';

describe('the bare wake (bench:teams baseline)', () => {
  const dbUrl = withDatabaseName(databaseServerUrl(), `sy_bare_wake_${Date.now()}`);
  beforeAll(() => ensureDatabase(dbUrl));
  afterAll(() => dropDatabase(dbUrl));

  it('brings every post to the model through its two processes, and leaves no table or key behind', async () => {
    const prefix = `bare${randomUUID().slice(0, 8)}`;
    const result = await bareWake({ dbUrl, redisUrl: redisUrl(), prefix, sessions: 5, rate: 50, count: 40 });

    expect(result.latencies).toHaveLength(40);
    expect(Math.min(...result.latencies)).toBeGreaterThan(0);
    expect(result.cpu.gateway).toBeGreaterThan(0);
    expect(result.cpu.runner).toBeGreaterThan(0);
    const pg = new Client({ connectionString: dbUrl });
    await pg.connect();
    const tables = await pg.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'bare_wake_%'`);
    await pg.end();
    expect(tables.rows[0].n).toBe(0);
    const redis = createRedis(redisUrl());
    const keys = await redis.keys(`${prefix}:*`);
    await closeRedis(redis);
    expect(keys).toEqual([]);
  }, 60_000);
});
