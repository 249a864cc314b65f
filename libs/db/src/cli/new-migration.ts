/**
 * `npm run db:migration -- NAME [--empty]`: writes `prisma/migrations/<UTC timestamp>_<name>/`
 * with the SQL that takes the previous migrations' schema to the current `prisma/schema.prisma`.
 *
 * "The previous migrations' schema" is the `schema.prisma` snapshot kept in the newest migration
 * folder that has one (each generated migration stores the schema it was generated from), so no
 * shadow database is needed. Hand-written migrations (`--empty`, then edit `migration.sql`) copy
 * the previous snapshot forward: their SQL adds what Prisma does not model (functions, triggers).
 *
 * The run protocol's functions are current source in `libs/runs/sql/` (decision 0044): every
 * migration also applies the function files that changed since the newest migration's
 * `functions.json` (`CREATE OR REPLACE`, the files as they are), and records the files' hashes
 * in a `functions.json` of its own. A change to a function file alone makes a migration.
 *
 * The engine diffs schemas offline but connects to a database while starting, so it uses the
 * `postgres` database of DATABASE_URL's server; nothing is written there.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { withDatabaseName } from '../database-admin';
import {
  DEFAULT_MIGRATIONS_DIR,
  DEFAULT_SCHEMA_PATH,
  findLatestSchemaSnapshot,
  listMigrationNames,
  migrationTimestamp,
  normalizeMigrationName,
  writeMigration,
} from '../migration-files';
import {
  changedFunctionFiles,
  findLatestFunctionsManifest,
  functionsMigrationSql,
  readFunctionFiles,
  removedFunctionFiles,
  writeFunctionsManifest,
} from '../function-files';
import { diffMigrationSql } from '../migrations';
import { databaseUrlFromEnv, printEngineProblems, runCli } from './cli-support';

const USAGE = 'usage: npm run db:migration -- NAME [--empty]';

const EMPTY_MIGRATION_SQL = [
  '-- Hand-written migration. Runs as one transaction (all statements in one query):',
  '-- CREATE INDEX CONCURRENTLY and other non-transactional statements cannot be used.',
  '',
].join('\n');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const empty = args.includes('--empty');
  const names = args.filter((arg) => !arg.startsWith('--'));
  if (names.length !== 1 || args.some((arg) => arg.startsWith('--') && arg !== '--empty')) {
    throw new Error(USAGE);
  }
  const folder = `${migrationTimestamp()}_${normalizeMigrationName(names[0] as string)}`;
  const schema = await readFile(DEFAULT_SCHEMA_PATH, 'utf8');
  const previous = await findLatestSchemaSnapshot(DEFAULT_MIGRATIONS_DIR);
  if (previous === null && (await listMigrationNames(DEFAULT_MIGRATIONS_DIR)).length > 0) {
    throw new Error(
      `no migration in ${DEFAULT_MIGRATIONS_DIR} has a schema.prisma snapshot, so the schema the ` +
        'migrations produce is unknown; copy the matching schema into the newest generated migration',
    );
  }
  if (previous && previous.laterWithoutSnapshot.length > 0) {
    console.log(`diffing from the snapshot of ${previous.migration}; later hand-written: ${previous.laterWithoutSnapshot.join(', ')}`);
  }

  const functions = await readFunctionFiles();
  const applied = await findLatestFunctionsManifest(DEFAULT_MIGRATIONS_DIR);
  const changed = changedFunctionFiles(functions, applied?.manifest ?? null);
  const removed = removedFunctionFiles(functions, applied?.manifest ?? null);
  if (removed.length > 0) {
    console.log(`function files removed (drop them in a hand-written migration): ${removed.join(', ')}`);
  }

  let sql: string;
  let snapshot: string;
  if (empty) {
    if (previous === null) throw new Error('the first migration must be generated from the schema, not --empty');
    sql = EMPTY_MIGRATION_SQL;
    // A hand-written migration changes nothing Prisma models; pending schema edits stay pending.
    snapshot = previous.schema;
  } else {
    sql = await diffMigrationSql({
      databaseUrl: withDatabaseName(databaseUrlFromEnv(), 'postgres'),
      from: previous ? { schema: previous.schema } : 'empty',
      toSchema: schema,
      log: printEngineProblems,
    });
    if (sql === '' && changed.length === 0) {
      console.log('no changes: prisma/schema.prisma and libs/runs/sql match the migrations');
      return;
    }
    snapshot = schema;
  }
  if (changed.length > 0) {
    sql = [sql.trimEnd(), functionsMigrationSql(changed)].filter((part) => part !== '').join('\n\n');
    console.log(`function files applied: ${changed.map((file) => file.name).join(', ')}`);
  }
  const dir = await writeMigration({ migrationsDir: DEFAULT_MIGRATIONS_DIR, folder, sql, schemaSnapshot: snapshot });
  await writeFunctionsManifest(dir, functions);
  console.log(`wrote ${path.relative(process.cwd(), path.join(dir, 'migration.sql'))}`);
}

runCli(main);
