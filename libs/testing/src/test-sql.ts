import { Client } from 'pg';
import { SqlPool } from '@switchyard/db';
import { createTestDatabase, type TestDatabase } from './test-database';

// Its own module: the global setup and teardown import test-database.ts, and must not load
// the Prisma client that @switchyard/db brings.

/** A test file's own database with the two ways tests reach it. */
export interface TestSql {
  db: TestDatabase;
  /** The pool the stores under test run on. */
  sql: SqlPool;
  /** A plain client, for the test's own set-up and checks. */
  pg: Client;
  /** Closes both and drops the database. */
  close(): Promise<void>;
}

/**
 * Why this exists: a store test needs its own database, the SqlPool its store
 * runs on and a client of its own to arrange rows and read them back.
 */
export async function createTestSql(): Promise<TestSql> {
  const db = await createTestDatabase();
  const sql = new SqlPool({ databaseUrl: db.url, poolMax: 2 });
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  return {
    db,
    sql,
    pg,
    close: async () => {
      await pg.end();
      await sql.$disconnect();
      await db.drop();
    },
  };
}
