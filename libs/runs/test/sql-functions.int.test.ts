import { readFunctionFiles } from '@switchyard/db';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { functionDrift } from '../src';

/**
 * The run protocol's functions on a database migrated from prisma/migrations (the test
 * template, migrated at the start of this jest run) are the files of libs/runs/sql, as
 * PostgreSQL prints them: a function changed in a migration by hand, or a file edited without
 * `npm run db:migration`, fails here.
 */
describe('libs/runs/sql and the migrated database', () => {
  let t: TestSql;

  beforeAll(async () => {
    t = await createTestSql();
  });

  afterAll(async () => {
    await t.close();
  });

  it('holds every function file, each as its file defines it', async () => {
    const files = await readFunctionFiles();
    expect(files.map((file) => file.name)).toEqual(expect.arrayContaining(['run_lane_lock', 'run_lane_key', 'run_lane_start', 'run_queue_claim_next']));
    await expect(functionDrift(t.sql, files)).resolves.toEqual([]);
  });

  it('names a function whose definition in the database is not its file', async () => {
    const files = await readFunctionFiles();
    const lock = files.find((file) => file.name === 'run_lane_key')!;
    await t.pg.query(lock.sql.replace("'run-lane:'", "'lane:'"));
    const drift = await functionDrift(t.sql, files);
    expect(drift.map(({ name, problem }) => ({ name, problem }))).toEqual([{ name: 'run_lane_key', problem: 'differs' }]);
    expect(drift[0]!.database).toContain("'lane:'");
    await t.pg.query(lock.sql);
    await expect(functionDrift(t.sql, files)).resolves.toEqual([]);
  });

  it('names a file whose function the database does not have', async () => {
    const extra = { name: 'run_lane_absent', sql: 'CREATE OR REPLACE FUNCTION "run_lane_absent"() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;', sha256: '' };
    await expect(functionDrift(t.sql, [extra])).resolves.toEqual([{ name: 'run_lane_absent', problem: 'missing' }]);
  });
});
