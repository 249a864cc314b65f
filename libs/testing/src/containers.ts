import { execFileSync } from 'node:child_process';

/** A container started for the test run, stopped by the global teardown. */
interface Started {
  stop(): Promise<unknown>;
}

const KEY = '__switchyardTestContainers';

/** Whether a Docker engine answers (`docker info` succeeds within 5 s). */
export function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why this exists: on a developer machine with Docker and no local Redis or
 * PostgreSQL configured, the integration tests still need the real servers.
 * When neither REDIS_URL nor DATABASE_URL is set and a Docker engine answers,
 * this starts Redis 7 and PostgreSQL 16 with testcontainers and points the
 * environment at them. Where no engine runs (these CI machines), the tests use
 * REDIS_URL / DATABASE_URL or the local default ports instead.
 */
export async function startContainersIfWanted(): Promise<void> {
  if (process.env.REDIS_URL || process.env.DATABASE_URL || !dockerAnswers()) return;
  const { GenericContainer, Wait } = await import('testcontainers');
  const redis = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
  const postgres = await new GenericContainer('postgres:16-alpine')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  (globalThis as Record<string, unknown>)[KEY] = [redis, postgres];
  process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  process.env.DATABASE_URL = `postgresql://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`;
}

/** Stops what startContainersIfWanted started (global setup and teardown share the process). */
export async function stopContainers(): Promise<void> {
  const started = ((globalThis as Record<string, unknown>)[KEY] ?? []) as Started[];
  await Promise.all(started.map((container) => container.stop()));
}
