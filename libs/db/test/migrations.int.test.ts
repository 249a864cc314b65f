import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { dropDatabase, ensureDatabase, withDatabaseName } from '../src/database-admin';
import { DEFAULT_MIGRATIONS_DIR, listMigrationNames } from '../src/migration-files';
import { Prisma } from '../src/generated/client';
import { createPrismaClient } from '../src/prisma-client';

/**
 * Applies every migration in prisma/migrations to a fresh database and checks the result
 * against prisma/schema.prisma. This guards the pinned Prisma packages and the WebAssembly
 * schema engine (a path Prisma does not document for version 7), and catches a schema edit
 * committed without its migration.
 *
 * The engine is an ES module that jest cannot load, so the test drives the real CLIs in child
 * processes under tsx, as `npm run db:migrate` and the jest global setup do. Its database is
 * not a clone of libs/testing's template (these same CLIs build that); it is named the way
 * libs/testing names test databases (`sy_test_<epoch seconds>_<kind><random>`, not imported:
 * @switchyard/testing depends on this package), so a later run drops it if a crash left it.
 */
const execFileAsync = promisify(execFile);
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const databaseName = `sy_test_${Math.floor(Date.now() / 1000)}_migrations${randomUUID().slice(0, 8)}`;
const databaseUrl = withDatabaseName(serverUrl, databaseName);
const repoRoot = path.resolve(__dirname, '../../..');

const EXPECTED_TABLES = ['api_tokens', 'memberships', 'platform_events', 'users', 'workspace_event_seq', 'workspaces'];

/** Runs one of libs/db's CLIs against the test database; resolves with its stdout and exit code. */
async function runCli(script: string): Promise<{ stdout: string; code: number }> {
  const args = [require.resolve('tsx/cli'), path.join(repoRoot, 'libs/db/src/cli', script)];
  try {
    const { stdout } = await execFileAsync(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    return { stdout, code: 0 };
  } catch (err) {
    const failed = err as { stdout?: string; stderr?: string; code?: number };
    if (typeof failed.code !== 'number') throw err;
    return { stdout: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, code: failed.code };
  }
}

/** Migration names from the migrate CLI's `applied <name>` lines. */
function appliedNames(stdout: string): string[] {
  return [...stdout.matchAll(/^applied (\S+)$/gm)].map((match) => match[1] as string);
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
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
    const { stdout, code } = await runCli('migrate.ts');
    expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringContaining('migration(s) applied') });
    expect(appliedNames(stdout)).toEqual(await listMigrationNames(DEFAULT_MIGRATIONS_DIR));
  });

  it('creates the tables of the schema', async () => {
    const rows = await query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    expect(rows.map((row) => row.table_name)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
  });

  it('partitions platform_events by ts and claims each idempotency key once in platform_event_keys (decision 0041)', async () => {
    const [partitioned] = await query<{ strategy: string; key: string }>(
      `SELECT p.partstrat::text AS strategy, a.attname AS key FROM pg_partitioned_table p
         JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
        WHERE p.partrelid = 'platform_events'::regclass`,
    );
    expect(partitioned).toEqual({ strategy: 'r', key: 'ts' });
    const rows = await query<{ columns: string[] }>(
      `SELECT array_agg(a.attname ORDER BY k.ord)::text[] AS columns
         FROM pg_index i
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indrelid = 'platform_event_keys'::regclass AND i.indisunique
        GROUP BY i.indexrelid`,
    );
    expect(rows.map((row) => row.columns)).toContainEqual(['workspace_id', 'idempotency_key']);
  });

  it('serves the generated client, with the unique (workspace_id, idempotency_key) enforced', async () => {
    const prisma = createPrismaClient({ databaseUrl, poolMax: 2 });
    try {
      const workspace = await prisma.workspace.create({ data: { id: randomUUID(), slug: 'acme' } });
      const fact = {
        workspaceId: workspace.id,
        kind: 'note.added',
        subjectType: 'note',
        subjectId: 'n1',
        payload: { text: 'hi' },
        idempotencyKey: 'k1',
        ts: new Date(),
      };
      await prisma.platformEvent.create({ data: { ...fact, id: randomUUID(), seq: 1n } });
      const duplicate = prisma.platformEvent.create({ data: { ...fact, id: randomUUID(), seq: 2n } });
      await expect(duplicate).rejects.toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      await expect(duplicate).rejects.toMatchObject({ code: 'P2002' });
    } finally {
      await prisma.$disconnect();
    }
  });

  it('writes every function that reads a table in PL/pgSQL, whose plans a connection keeps (decision 0017)', async () => {
    // A SQL-language function with a FROM clause (not `extract(… FROM f())`) is not inlined: PostgreSQL plans its body on every statement that calls it.
    const planned = await query<{ proname: string }>(
      `SELECT p.proname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.pronamespace = 'public'::regnamespace AND l.lanname = 'sql' AND p.prosrc ~* '\\mFROM\\s+"?[a-z_]\\w*\\M"?(?!\\s*\\()' ORDER BY 1`,
    );
    expect(planned.map((row) => row.proname)).toEqual([]);
  });

  it('applies nothing the second time', async () => {
    const { stdout, code } = await runCli('migrate.ts');
    expect(code).toBe(0);
    expect(appliedNames(stdout)).toEqual([]);
    expect(stdout).toContain('no pending migrations');
  });

  it('leaves no difference between the migrated database and prisma/schema.prisma', async () => {
    // Exit 2 with SQL means schema.prisma changed without a migration: `npm run db:migration -- NAME`.
    const { stdout, code } = await runCli('check-schema.ts');
    expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringContaining('matches prisma/schema.prisma') });
  });
});
