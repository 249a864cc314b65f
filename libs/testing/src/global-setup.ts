import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { databaseServerUrl, redisUrl, TEMPLATE_DATABASE, TEST_DATABASE_PREFIX, withDatabase } from './infra';

/**
 * Why this exists: every integration test file clones one migrated template
 * database instead of migrating its own. This runs once per jest run: it
 * checks Redis and PostgreSQL answer (saying which one does not), drops test
 * databases left by crashed runs, re-creates the template and applies every
 * migration to it through the real migration command.
 */
export default async function globalSetup(): Promise<void> {
  process.env.REDIS_URL = redisUrl();
  process.env.DATABASE_URL = databaseServerUrl();
  const admin = new Client({ connectionString: withDatabase(databaseServerUrl(), 'postgres') });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL at ${databaseServerUrl()} does not answer (set DATABASE_URL): ${String(error)}`);
  }
  try {
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2`,
      [`${TEST_DATABASE_PREFIX}%`, TEMPLATE_DATABASE],
    );
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const root = path.resolve(__dirname, '../../..');
  execFileSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'libs/db/src/cli/migrate.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: withDatabase(databaseServerUrl(), TEMPLATE_DATABASE) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
