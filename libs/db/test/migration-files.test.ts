import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  findLatestSchemaSnapshot,
  MIGRATION_LOCK_CONTENT,
  migrationTimestamp,
  normalizeMigrationName,
  readMigrationsList,
  writeMigration,
} from '../src/migration-files';

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
