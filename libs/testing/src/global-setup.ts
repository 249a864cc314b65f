import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { startContainersIfWanted } from './containers';
import { buildTestBundles } from './test-bundles';
import { buildUi } from './ui-build';
import { databaseServerUrl, isStaleTestDatabase, newTestDatabaseName, redisUrl, TEST_DATABASE_PREFIX, withDatabase } from './infra';

/**
 * Why this exists: every integration test file clones one migrated template
 * database instead of migrating its own. This runs once per jest run: it
 * checks PostgreSQL answers, drops test databases older than a day (left by
 * crashed runs), creates this run's template and applies every migration to
 * it through the real migration command. The template is dropped by the
 * global teardown. It also bundles the entry points tests spawn (see
 * test-bundles) and builds the web UI the browser tests load (see ui-build).
 */
export default async function globalSetup(): Promise<void> {
  await startContainersIfWanted();
  process.env.REDIS_URL = redisUrl();
  process.env.DATABASE_URL = databaseServerUrl();
  const template = newTestDatabaseName('template');
  process.env.SY_TEST_TEMPLATE = template;
  const admin = new Client({ connectionString: withDatabase(databaseServerUrl(), 'postgres') });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL at ${databaseServerUrl()} does not answer (set DATABASE_URL): ${String(error)}`, { cause: error });
  }
  try {
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${TEST_DATABASE_PREFIX}%`],
    );
    for (const { datname } of stale.rows) {
      if (isStaleTestDatabase(datname, 86_400)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  await buildTestBundles();
  buildUi();
  const root = path.resolve(__dirname, '../../..');
  execFileSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'libs/db/src/cli/migrate.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: withDatabase(databaseServerUrl(), template) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
