import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMA_PATH, readMigrationsList } from './migration-files';
import { openSchemaEngine, type SchemaEngineLog } from './schema-engine';

/** Nothing is managed outside Prisma's schema (see `tables.external` in Prisma's config). */
const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * A schema with no models: what a new PostgreSQL database holds. Diffing from it rather than from
 * the engine's `empty` target matters: `empty` lacks even the `public` schema, so its script
 * starts with `CREATE SCHEMA IF NOT EXISTS "public"`, which needs CREATE on the database (often
 * not granted to an application role) and which `prisma migrate dev` does not generate.
 */
const EMPTY_DATABASE_SCHEMA = 'datasource db {\n  provider = "postgresql"\n}\n';

/** Options of {@link applyMigrations}. */
export interface ApplyMigrationsOptions {
  /** Receives the schema engine's log lines (one per applied migration, with its `script`). @defaultValue dropped */
  log?: SchemaEngineLog;
  /** Folder of `<name>/migration.sql` plus `migration_lock.toml`. @defaultValue the repo's `prisma/migrations` */
  migrationsDir?: string;
  /** The Prisma schema handed to the engine (it needs one to start). @defaultValue the repo's `prisma/schema.prisma` */
  schemaPath?: string;
}

/**
 * Applies the migrations not yet applied to `databaseUrl`, like `prisma migrate deploy`: each
 * is recorded in `_prisma_migrations`, so a second call applies nothing. The engine holds a
 * PostgreSQL advisory lock meanwhile, so concurrent callers (several services starting at once)
 * apply each migration once.
 *
 * Each `migration.sql` runs as one multi-statement query, i.e. in one implicit transaction: a
 * failing migration leaves no partial changes, is recorded as failed, and blocks later calls
 * until resolved (as with Prisma). Statements that refuse to run in a transaction, such as
 * `CREATE INDEX CONCURRENTLY`, cannot be used.
 *
 * @returns the names of the migrations applied by this call, in order.
 */
export async function applyMigrations(
  databaseUrl: string,
  options: ApplyMigrationsOptions = {},
): Promise<string[]> {
  const schemaPath = options.schemaPath ?? DEFAULT_SCHEMA_PATH;
  const migrationsList = await readMigrationsList(options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const schema = await readFile(schemaPath, 'utf8');
  const { engine, close } = await openSchemaEngine({
    databaseUrl,
    datamodels: [[path.basename(schemaPath), schema]],
    log: options.log,
  });
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
    return appliedMigrationNames;
  } finally {
    await close();
  }
}

/**
 * Where a diff starts:
 * - `'empty'`: a new, empty database (which on PostgreSQL has the `public` schema);
 * - `'database'`: the live database at `databaseUrl` (its `_prisma_migrations` table is ignored);
 * - `{ schema }`: the database a Prisma schema describes, e.g. a migration's schema snapshot.
 */
export type DiffSource = 'empty' | 'database' | { schema: string };

/** Options of {@link diffMigrationSql}. */
export interface DiffMigrationSqlOptions {
  /**
   * A reachable database on the target server. The engine connects even for a schema-to-schema
   * diff (nothing is written); for `from: 'database'` it is the database described.
   */
  databaseUrl: string;
  /** Where the diff starts. */
  from: DiffSource;
  /** The Prisma schema the migration must reach. */
  toSchema: string;
  /** Receives the schema engine's log lines. @defaultValue dropped */
  log?: SchemaEngineLog;
}

/**
 * Computes the SQL that takes the database from `from` to `toSchema`, as `prisma migrate diff
 * --script` does, without a shadow database.
 *
 * @returns the migration SQL, or `''` when there is nothing to change.
 */
export async function diffMigrationSql(options: DiffMigrationSqlOptions): Promise<string> {
  const toFiles = [{ path: 'schema.prisma', content: options.toSchema }];
  const { engine, close } = await openSchemaEngine({
    databaseUrl: options.databaseUrl,
    datamodels: [['schema.prisma', options.toSchema]],
    log: options.log,
  });
  try {
    const result = await engine.diff({
      from: toDiffTarget(options.from, toFiles),
      to: { tag: 'schemaDatamodel', files: toFiles },
      script: true,
      // With exitCode set the engine reports 2 for a non-empty diff and 0 for an empty one,
      // whose script is only a comment ("-- This is an empty migration.").
      exitCode: true,
      filters: NO_FILTERS,
    });
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } finally {
    await close();
  }
}

type SchemaFiles = { path: string; content: string }[];

function toDiffTarget(from: DiffSource, toFiles: SchemaFiles) {
  if (from === 'empty') return { tag: 'schemaDatamodel' as const, files: [{ path: 'empty.prisma', content: EMPTY_DATABASE_SCHEMA }] };
  // `schemaDatasource` means "the database of this schema's datasource", which with a driver
  // adapter is the adapter's database; the schema only supplies the provider.
  if (from === 'database') return { tag: 'schemaDatasource' as const, files: toFiles, configDir: process.cwd() };
  return { tag: 'schemaDatamodel' as const, files: [{ path: 'schema.prisma', content: from.schema }] };
}
