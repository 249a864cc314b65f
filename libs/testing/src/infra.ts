/**
 * Where the integration tests find the real Redis and PostgreSQL. Tests use
 * REDIS_URL / DATABASE_URL when they are set (CI and `npm test` set them);
 * otherwise the services on this machine's default ports. The global setup
 * resolves this once and writes it into the environment of every worker.
 */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/**
 * Name of the database the global setup migrates once per jest run and each
 * test file clones. Per run (the setup puts it in the environment the workers
 * inherit), so that concurrent runs never drop each other's template.
 */
export function templateDatabase(): string {
  return process.env.SY_TEST_TEMPLATE ?? 'sy_test_template';
}

/**
 * Prefix of every database a test creates. Names carry their creation time
 * (`sy_test_<epoch seconds>_<random>`), so stale ones left by crashed runs can
 * be dropped without touching a concurrent run's.
 */
export const TEST_DATABASE_PREFIX = 'sy_test_';

/** A new test database name with its creation time in it. */
export function newTestDatabaseName(kind: string): string {
  return `${TEST_DATABASE_PREFIX}${Math.floor(Date.now() / 1000)}_${kind}${Math.random().toString(36).slice(2, 10)}`;
}

/** Whether a test database name is older than maxAgeSeconds (names without a time count as old). */
export function isStaleTestDatabase(name: string, maxAgeSeconds: number): boolean {
  const created = Number(/^sy_test_(\d+)_/.exec(name)?.[1] ?? 0);
  return created < Date.now() / 1000 - maxAgeSeconds;
}

export function redisUrl(): string {
  return process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
}

/** The server-level URL (any database on the server); the database part is replaced per test. */
export function databaseServerUrl(): string {
  return process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
