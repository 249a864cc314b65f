import { SqlPool } from '@switchyard/db';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { SqlRunQueue } from '../src';

/**
 * Issue 33 leftover (decision 0051): each lapse of a run's lease that puts it
 * back in line is counted on the run (`lease_lapses`), and the claim that
 * starts it again hands the count to the runner, which stops continuing it
 * past MAX_RUN_CONTINUATIONS (services/runner/test/issue-33-continuation-cap.test.ts).
 */
describe('issue 33: a run counts the lapses of its lease', () => {
  let t: TestSql;
  let pool: SqlPool;
  const userId = newId();

  beforeAll(async () => {
    t = await createTestSql();
    pool = new SqlPool({ databaseUrl: t.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await t?.close();
  });

  it('starts a fresh run with no lapse, and each continuation after a lapse with one more', async () => {
    const workspaceId = newId();
    const agentId = newId();
    const runId = newId();
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'lapses')`, [workspaceId]);
    await t.pg.query(`INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1::uuid, $2, $1::text, 1, true, $3, now())`, [agentId, workspaceId, userId]);
    await t.pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, '{}'::jsonb, $2)`, [agentId, userId]);
    await t.pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id)
       VALUES ($1, $2, $3, 1, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $4::uuid), 'queued', $1)`,
      [runId, workspaceId, agentId, userId],
    );
    const lapses: Array<number | undefined> = [];
    for (let owner = 0; owner < 4; owner++) {
      const claimed = await new SqlRunQueue(pool, { owner: `runner-${owner}`, leaseMs: 60_000 }).claimLane(`agent:${agentId}`, 1);
      expect(claimed.started.map((run) => run.id)).toEqual([runId]);
      lapses.push(claimed.started[0]!.leaseLapses);
      // Its runner dies: the lease lapses, and the next claim of the lane settles it.
      await t.pg.query(`UPDATE runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);
    }
    expect(lapses).toEqual([0, 1, 2, 3]);
  });
});
