import { createTestSql, type TestSql } from '@switchyard/testing';
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
});
