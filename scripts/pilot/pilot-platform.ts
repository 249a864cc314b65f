import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { newSecretsKey } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createRedis } from '@switchyard/redis';
import { spawnService, type ServiceProcess } from '@switchyard/testing';

const ROOT = path.resolve(__dirname, '../..');

/** The pilot's own platform: a fresh database and Redis prefix, gateway, event-log and runner processes. */
export interface PilotPlatform {
  baseUrl: string;
  databaseUrl: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * Starts the platform the pilot measures, as an operator runs it: migrations,
 * the admin command's workspace, and each service as its own process. With a
 * model URL the runner's OpenAI-compatible client points there.
 */
export async function startPilotPlatform(options: { modelUrl?: string; log: (line: string) => void }): Promise<PilotPlatform> {
  const server = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const databaseUrl = withDatabaseName(server, `sy_pilot_${Date.now()}`);
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `pilot${randomUUID().slice(0, 8)}`;
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    PORT: '0',
    GATEWAY_HEALTH_PORT: '0',
    EVENT_LOG_HEALTH_PORT: '0',
    RUNNER_HEALTH_PORT: '0',
    OPS_FACTS_ENABLED: 'false',
    SECRETS_KEY: newSecretsKey(),
    ...(options.modelUrl ? { OPENAI_BASE_URL: options.modelUrl, MODEL_MAX_ATTEMPTS: '1' } : {}),
  };
  const procs: ServiceProcess[] = [];
  const stop = async () => {
    await Promise.all(procs.map((proc) => proc.stop('SIGTERM')));
    const redis = createRedis(redisUrl);
    for (const key of await redis.keys(`${prefix}:*`)) await redis.del(key);
    await closeRedis(redis);
    await dropDatabase(databaseUrl);
  };
  try {
    const created = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', 'pilot'], { cwd: ROOT, env: { ...process.env, ...env } });
    const token = created.stdout.trim().split('\n').at(-1)!;
    const info = { ...env, LOG_LEVEL: 'info' };
    procs.push(await spawnService('event-log', info, { output: 'file' }));
    const gateway = await spawnService('gateway', info, { readyPattern: /gateway listening/, output: 'file' });
    procs.push(gateway);
    procs.push(await spawnService('runner', info, { readyPattern: /runner started/, output: 'file' }));
    const baseUrl = `http://127.0.0.1:${/"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())![1]}`;
    options.log(`platform up: ${baseUrl}, database ${databaseUrl}`);
    return { baseUrl, databaseUrl, token, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
