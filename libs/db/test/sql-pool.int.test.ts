import { createTestSql, waitFor, type TestSql } from '@switchyard/testing';
import { SqlPool } from '../src';

/**
 * SqlPool on a real PostgreSQL: each statement text is prepared once per
 * connection, and executed with its generic plan — never planned again per
 * execution, which PostgreSQL's default did for the runner's hand-off.
 */
describe('SqlPool', () => {
  let t: TestSql;
  let pool: SqlPool;
  beforeAll(async () => {
    t = await createTestSql();
    pool = new SqlPool({ databaseUrl: t.db.url, poolMax: 1, applicationName: 'sql-pool-test' });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await t?.close();
  });

  it('prepares a statement once and runs it with its generic plan', async () => {
    expect(await pool.$queryRawUnsafe('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_generic_plan' }]);
    // A statement whose custom plans PostgreSQL would otherwise prefer: a CTE with scalar subqueries.
    const text = `WITH w AS (SELECT id FROM workspaces WHERE id = coalesce((SELECT id FROM workspaces WHERE slug = $1), (SELECT id FROM workspaces WHERE slug = $2)))
      SELECT count(*)::int AS n FROM w`;
    for (let i = 0; i < 8; i++) expect(await pool.$queryRawUnsafe(text, `a${i}`, `b${i}`)).toEqual([{ n: 0 }]);
    const [prepared] = await pool.$queryRawUnsafe<Array<{ generic_plans: string; custom_plans: string }>>(
      'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1',
      text,
    );
    expect({ generic: Number(prepared!.generic_plans), custom: Number(prepared!.custom_plans) }).toEqual({ generic: 8, custom: 0 });
  });

  it('counts the rows a statement changed', async () => {
    expect(await pool.$executeRawUnsafe(`UPDATE workspaces SET slug = slug WHERE slug = $1`, 'none')).toBe(0);
  });

  it("survives its transaction's backend terminated between two statements: the next one fails, the pool serves on", async () => {
    const failed = pool.transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid');
      const pid = row!.pid;
      // Terminated from outside while the transaction waits between statements (what a restart or a chaos kill does).
      await t.pg.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(async () => (await t.pg.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, { what: 'the backend gone' });
      return tx.$queryRawUnsafe('SELECT 1');
    });
    await expect(failed).rejects.toThrow();
    // The broken connection was discarded: the pool (of one) answers on a new one.
    expect(await pool.$queryRawUnsafe('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });
});
