/**
 * `tsx libs/db/src/cli/check-schema.ts`: compares the database at DATABASE_URL (default
 * {@link DEFAULT_DATABASE_URL}) with `prisma/schema.prisma`, like `prisma migrate diff
 * --exit-code`. Exit 0: they match. Exit 2: they differ, and the SQL that would make the
 * database match is printed (a schema edit without its migration, or a hand-altered database).
 * Exit 1: the check failed. Objects Prisma does not model (functions, triggers) are ignored.
 */
import { readFile } from 'node:fs/promises';
import { DEFAULT_SCHEMA_PATH } from '../migration-files';
import { diffMigrationSql } from '../migrations';
import { databaseUrlFromEnv, describeDatabase, printEngineProblems, runCli } from './cli-support';

async function main(): Promise<void> {
  const databaseUrl = databaseUrlFromEnv();
  const schema = await readFile(DEFAULT_SCHEMA_PATH, 'utf8');
  const sql = await diffMigrationSql({ databaseUrl, from: 'database', toSchema: schema, log: printEngineProblems });
  if (sql === '') {
    console.log(`${describeDatabase(databaseUrl)} matches prisma/schema.prisma`);
    return;
  }
  console.log(sql);
  console.error(`${describeDatabase(databaseUrl)} differs from prisma/schema.prisma (SQL above)`);
  process.exitCode = 2;
}

runCli(main);
