import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { databaseNameOf, withDatabaseName } from '@switchyard/db';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** The PostgreSQL server the harness uses: DATABASE_URL (any database on it), else the local default. */
export function serverUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
}

/** A new database name of the harness's own on `server`, with its creation time in it. */
export function chaosDatabaseUrl(server: string): string {
  return withDatabaseName(server, `sy_chaos_${Math.floor(Date.now() / 1000)}_${Math.random().toString(36).slice(2, 8)}`);
}

/**
 * Creates and migrates the database with the project's migration command
 * (`npm run db:migrate`, which also creates it), exactly as an operator would.
 */
export async function migrateDatabase(url: string): Promise<void> {
  await run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'libs/db/src/cli/migrate.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url } });
}

/**
 * Terminates every backend connected to the harness's database but this
 * call's own (the services' pools must reconnect). Returns how many were
 * terminated, or the reason the server refused (a non-superuser may not).
 */
export async function terminateBackends(url: string): Promise<{ ok: true; terminated: number } | { ok: false; reason: string }> {
  const client = new Client({ connectionString: withDatabaseName(url, 'postgres') });
  await client.connect();
  try {
    const result = await client.query<{ done: boolean }>(
      'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [databaseNameOf(url)],
    );
    return { ok: true, terminated: result.rows.filter((row) => row.done).length };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end();
  }
}
