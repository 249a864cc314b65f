/**
 * `npm run db:migrate`: applies pending migrations from `prisma/migrations` to DATABASE_URL
 * (default {@link DEFAULT_DATABASE_URL}), creating the database first if it does not exist.
 * Prints the names of the migrations it applied. Safe to run repeatedly and concurrently.
 */
import { ensureDatabase } from '../database-admin';
import { applyMigrations } from '../migrations';
import { databaseUrlFromEnv, describeDatabase, printEngineProblems, runCli } from './cli-support';

async function main(): Promise<void> {
  const databaseUrl = databaseUrlFromEnv();
  const target = describeDatabase(databaseUrl);
  if (await ensureDatabase(databaseUrl)) console.log(`created database ${target}`);
  const started = Date.now();
  const applied = await applyMigrations(databaseUrl, { log: printEngineProblems });
  for (const name of applied) console.log(`applied ${name}`);
  const summary = applied.length === 0 ? 'no pending migrations' : `${applied.length} migration(s) applied`;
  console.log(`${summary} on ${target} (${Date.now() - started} ms)`);
}

runCli(main);
