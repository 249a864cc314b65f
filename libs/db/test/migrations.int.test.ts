import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import {
  applyMigrations,
  DEFAULT_MIGRATIONS_DIR,
  DEFAULT_SCHEMA_PATH,
  diffMigrationSql,
  dropDatabase,
  ensureDatabase,
  withDatabaseName,
} from '../src/index';
import { listMigrationNames } from '../src/migration-files';

/**
 * Applies every migration in prisma/migrations to a fresh database and checks the result
 * against prisma/schema.prisma. This guards the pinned Prisma packages and the WebAssembly
 * schema engine (a path Prisma does not document for version 7), and catches a schema edit
 * committed without its migration.
 *
 * It runs the engine in-process, so it also proves the engine loads under jest. Its own
 * database (not libs/testing's template clone: that template is built by this code) carries
 * the `sy_test_` prefix so the global setup drops it if a crashed run left it behind.
 */
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const databaseUrl = withDatabaseName(serverUrl, `sy_test_db_${randomUUID().replace(/-/g, '').slice(0, 16)}`);

const EXPECTED_TABLES = [
  'api_tokens',
  'memberships',
  'platform_events',
  'users',
  'workspace_event_seq',
  'workspaces',
];

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('migrations on a fresh database', () => {
  beforeAll(async () => {
    await ensureDatabase(databaseUrl);
  });

  afterAll(async () => {
    await dropDatabase(databaseUrl);
  });

  it('applies every migration, in folder order', async () => {
    const started = Date.now();
    const applied = await applyMigrations(databaseUrl);
    // Printed for the record: how long a fresh database takes to migrate.
    console.info(`applied ${applied.length} migration(s) in ${Date.now() - started} ms`);
    expect(applied).toEqual(await listMigrationNames(DEFAULT_MIGRATIONS_DIR));
    expect(applied.length).toBeGreaterThan(0);
  });

  it('creates the tables of the schema', async () => {
    const rows = await query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    expect(rows.map((row) => row.table_name)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
  });

  it('makes (workspace_id, idempotency_key) unique on platform_events', async () => {
    const rows = await query<{ columns: string[] }>(
      `SELECT array_agg(a.attname ORDER BY k.ord)::text[] AS columns
         FROM pg_index i
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indrelid = 'platform_events'::regclass AND i.indisunique
        GROUP BY i.indexrelid`,
    );
    expect(rows.map((row) => row.columns)).toContainEqual(['workspace_id', 'idempotency_key']);
  });

  it('applies nothing the second time', async () => {
    await expect(applyMigrations(databaseUrl)).resolves.toEqual([]);
  });

  it('leaves no difference between the migrated database and prisma/schema.prisma', async () => {
    const schema = await readFile(DEFAULT_SCHEMA_PATH, 'utf8');
    // Non-empty means schema.prisma changed without a migration: run `npm run db:migration -- NAME`.
    await expect(diffMigrationSql({ databaseUrl, from: 'database', toSchema: schema })).resolves.toBe('');
  });
});
