/**
 * Where the integration tests find the real Redis and PostgreSQL. Tests use
 * REDIS_URL / DATABASE_URL when they are set (CI and `npm test` set them);
 * otherwise the services on this machine's default ports. The global setup
 * resolves this once and writes it into the environment of every worker.
 */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Name of the database the global setup migrates once and each test file clones. */
export const TEMPLATE_DATABASE = 'sy_test_template';

/** Prefix of every database a test creates, so stale ones can be found and dropped. */
export const TEST_DATABASE_PREFIX = 'sy_test_';

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
