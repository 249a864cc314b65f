import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DEFAULT_MIGRATIONS_DIR,
  findLatestSchemaSnapshot,
  listMigrationNames,
  MIGRATION_SQL_FILE,
  MIGRATION_LOCK_CONTENT,
  migrationTimestamp,
  normalizeMigrationName,
  readMigrationsList,
  writeMigration,
} from '../src/migration-files';
import {
  changedFunctionFiles,
  DEFAULT_FUNCTIONS_DIR,
  findLatestFunctionsManifest,
  FUNCTIONS_MANIFEST_FILE,
  functionsManifest,
  functionsMigrationSql,
  readFunctionFiles,
  removedFunctionFiles,
} from '../src/function-files';

/** Each test gets an empty migrations folder in the OS temp dir, removed afterwards. */
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sy-migrations-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function addMigration(name: string, files: Record<string, string>): Promise<void> {
  await mkdir(path.join(dir, name));
  for (const [file, content] of Object.entries(files)) await writeFile(path.join(dir, name, file), content);
}

describe('migration names', () => {
  it('formats the UTC timestamp prefix as Prisma does', () => {
    expect(migrationTimestamp(new Date('2025-03-04T05:06:07.890Z'))).toBe('20250304050607');
  });

  it('normalizes a user-given name to lower snake case', () => {
    expect(normalizeMigrationName('Add user-Email ')).toBe('add_user_email');
  });

  it('rejects a name with nothing usable', () => {
    expect(() => normalizeMigrationName(' -- ')).toThrow('invalid migration name');
  });
});

describe('readMigrationsList', () => {
  it('lists migration folders in order, with the lock file and an error for a missing script', async () => {
    await addMigration('20250102000000_b', { 'migration.sql': 'SELECT 2;' });
    await addMigration('20250101000000_a', { 'migration.sql': 'SELECT 1;' });
    await addMigration('20250103000000_broken', {});
    await writeFile(path.join(dir, 'migration_lock.toml'), MIGRATION_LOCK_CONTENT);

    const list = await readMigrationsList(dir);

    expect(list.lockfile).toEqual({ path: 'migration_lock.toml', content: MIGRATION_LOCK_CONTENT });
    expect(list.migrationDirectories.map((entry) => entry.path)).toEqual([
      '20250101000000_a',
      '20250102000000_b',
      '20250103000000_broken',
    ]);
    expect(list.migrationDirectories[0]?.migrationFile.content).toEqual({ tag: 'ok', value: 'SELECT 1;' });
    expect(list.migrationDirectories[2]?.migrationFile.content.tag).toBe('error');
  });

  it('treats a missing folder as no migrations', async () => {
    const list = await readMigrationsList(path.join(dir, 'absent'));
    expect(list.migrationDirectories).toEqual([]);
    expect(list.lockfile.content).toBeNull();
  });
});

describe('findLatestSchemaSnapshot', () => {
  it('returns the newest snapshot and the hand-written migrations after it', async () => {
    await addMigration('20250101000000_init', { 'migration.sql': '', 'schema.prisma': 'v1' });
    await addMigration('20250102000000_more', { 'migration.sql': '', 'schema.prisma': 'v2' });
    await addMigration('20250103000000_functions', { 'migration.sql': '' });

    await expect(findLatestSchemaSnapshot(dir)).resolves.toEqual({
      migration: '20250102000000_more',
      schema: 'v2',
      laterWithoutSnapshot: ['20250103000000_functions'],
    });
  });

  it('returns null when no migration has a snapshot', async () => {
    await addMigration('20250101000000_init', { 'migration.sql': '' });
    await expect(findLatestSchemaSnapshot(dir)).resolves.toBeNull();
  });
});

describe('writeMigration', () => {
  it('writes the script, the snapshot and the lock file', async () => {
    await writeMigration({ migrationsDir: dir, folder: '20250101000000_init', sql: 'SQL', schemaSnapshot: 'S' });

    await expect(readFile(path.join(dir, '20250101000000_init', 'migration.sql'), 'utf8')).resolves.toBe('SQL');
    await expect(readFile(path.join(dir, '20250101000000_init', 'schema.prisma'), 'utf8')).resolves.toBe('S');
    await expect(readFile(path.join(dir, 'migration_lock.toml'), 'utf8')).resolves.toBe(MIGRATION_LOCK_CONTENT);
  });

  it('refuses a folder that would not sort after the latest migration', async () => {
    await addMigration('20250102000000_later', { 'migration.sql': '' });
    await expect(
      writeMigration({ migrationsDir: dir, folder: '20250101000000_earlier', sql: '', schemaSnapshot: '' }),
    ).rejects.toThrow('would not sort after');
  });
});

const definition = (name: string, body = 'SELECT 1') => `-- ${name}\nCREATE OR REPLACE FUNCTION "${name}"() RETURNS int LANGUAGE sql AS $$ ${body} $$;\n`;

describe('function files', () => {
  it('reads one function per file, sorted, with its hash', async () => {
    await writeFile(path.join(dir, 'b_fn.sql'), definition('b_fn'));
    await writeFile(path.join(dir, 'a_fn.sql'), definition('a_fn'));
    const files = await readFunctionFiles(dir);
    expect(files.map((file) => file.name)).toEqual(['a_fn', 'b_fn']);
    expect(files[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a file that defines another function than its name, or two', async () => {
    await writeFile(path.join(dir, 'a_fn.sql'), definition('b_fn'));
    await expect(readFunctionFiles(dir)).rejects.toThrow('a_fn.sql must hold exactly one');
    await writeFile(path.join(dir, 'a_fn.sql'), definition('a_fn') + definition('a_fn'));
    await expect(readFunctionFiles(dir)).rejects.toThrow('a_fn.sql must hold exactly one');
  });

  it('applies only the files changed since the newest manifest, and names the removed ones', async () => {
    await writeFile(path.join(dir, 'a_fn.sql'), definition('a_fn'));
    await writeFile(path.join(dir, 'b_fn.sql'), definition('b_fn'));
    const before = await readFunctionFiles(dir);
    const manifest = { ...functionsManifest(before), 'gone_fn.sql': 'x' };
    await writeFile(path.join(dir, 'b_fn.sql'), definition('b_fn', 'SELECT 2'));
    const after = await readFunctionFiles(dir);

    expect(changedFunctionFiles(after, null).map((file) => file.name)).toEqual(['a_fn', 'b_fn']);
    expect(changedFunctionFiles(after, manifest).map((file) => file.name)).toEqual(['b_fn']);
    expect(removedFunctionFiles(after, manifest)).toEqual(['gone_fn.sql']);
    expect(functionsMigrationSql(changedFunctionFiles(after, manifest))).toContain('SELECT 2');
    expect(functionsMigrationSql([])).toBe('');
  });

  it('finds the newest manifest among the migrations', async () => {
    await mkdir(path.join(dir, '20250101000000_a'));
    await writeFile(path.join(dir, '20250101000000_a', FUNCTIONS_MANIFEST_FILE), '{"a_fn.sql": "1"}');
    await mkdir(path.join(dir, '20250102000000_b'));
    await expect(findLatestFunctionsManifest(dir)).resolves.toEqual({ migration: '20250101000000_a', manifest: { 'a_fn.sql': '1' } });
  });
});

/**
 * The repository's own migrations: libs/runs/sql is the source of the run protocol's functions
 * (decision 0044). No migration from the cut-over on writes those functions outside its
 * generated part, and the newest manifest is the files as they are: a file edited without
 * `npm run db:migration` fails.
 */
describe('the repository migrations and libs/runs/sql', () => {
  const GENERATED = '-- Generated by `npm run db:migration` from libs/runs/sql/';

  it('have no function change pending', async () => {
    const latest = await findLatestFunctionsManifest(DEFAULT_MIGRATIONS_DIR);
    const files = await readFunctionFiles(DEFAULT_FUNCTIONS_DIR);
    expect(changedFunctionFiles(files, latest?.manifest ?? null).map((file) => file.name)).toEqual([]);
    expect(removedFunctionFiles(files, latest?.manifest ?? null)).toEqual([]);
  });

  it('write the functions only from the files after the cut-over', async () => {
    const names = await listMigrationNames(DEFAULT_MIGRATIONS_DIR);
    const files = await readFunctionFiles(DEFAULT_FUNCTIONS_DIR);
    const defines = new RegExp(`CREATE\\s+(OR\\s+REPLACE\\s+)?FUNCTION\\s+"?(${files.map((file) => file.name).join('|')})"?\\s*\\(`, 'i');
    let cutOver = false;
    for (const name of names) {
      // A migration without a manifest (one written by hand, or on a branch older than the cut-over) changes no function file.
      const manifest = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, name, FUNCTIONS_MANIFEST_FILE), 'utf8').catch(() => null);
      cutOver ||= manifest !== null;
      if (!cutOver) continue;
      const sql = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, name, MIGRATION_SQL_FILE), 'utf8');
      const at = sql.indexOf(GENERATED);
      const handWritten = at < 0 ? sql : sql.slice(0, at);
      expect({ name, handWritten: defines.test(handWritten) }).toEqual({ name, handWritten: false });
    }
    expect(cutOver).toBe(true);
  });
});
