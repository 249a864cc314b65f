import { Client } from 'pg';
import { SqlPool } from '@switchyard/db';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { SqlRunQueue } from '../src';

/**
 * Issue 37, items 2 and 3 (decision 0054), on a real PostgreSQL: an agent's lane is claimed and
 * ended without a lane-wide lock (an ending left uncommitted does not hold up another claim of
 * its lane), a lane's concurrency goes to 1,000, concurrent claims and endings never start more
 * runs than the lane's slots, and a claim takes workspaces in the fair order with a workspace's
 * `max_concurrent_runs` as ceiling.
 */
describe('issue 37: the run queue without a lane-wide lock, fair between workspaces', () => {
  let t: TestSql;
  const pools: SqlPool[] = [];
  const userId = newId();
  let order = 0;
  // Each batch 10 s after the previous one, its runs a millisecond apart (queued_at keeps milliseconds).
  const base = Date.now() - 60_000;

  beforeAll(async () => {
    t = await createTestSql();
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.$disconnect()));
    await t.close();
  });
  const queue = (owner: string) => {
    const pool = new SqlPool({ databaseUrl: t.db.url, poolMax: 4 });
    pools.push(pool);
    return new SqlRunQueue(pool, { owner, leaseMs: 60_000 });
  };
  const workspace = async (ceiling: number | null = null) => {
    const id = newId();
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, $2)`, [id, `ws-${id.slice(-12)}`]);
    if (ceiling !== null) await t.pg.query(`INSERT INTO workspace_settings (workspace_id, max_concurrent_runs) VALUES ($1, $2)`, [id, ceiling]);
    return id;
  };
  const agent = async (workspaceId: string, concurrency: number) => {
    const id = newId();
    await t.pg.query(
      `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1::uuid, $2, $1::text, 1, true, $3, now())`,
      [id, workspaceId, userId],
    );
    await t.pg.query(
      `INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, jsonb_build_object('flow', jsonb_build_object('concurrency', $2::int)), $3)`,
      [id, concurrency, userId],
    );
    return id;
  };
  /** Queues `count` runs of the agent in one statement, in line order; returns their ids. */
  const enqueue = async (workspaceId: string, agentId: string, count: number) => {
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, queued_at)
       SELECT g.id, $1, $2, 1, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $3::uuid), 'queued', g.id, $4::timestamptz + n * interval '1 millisecond'
         FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, $5::int) AS n) g
       RETURNING id::text`,
      [workspaceId, agentId, userId, new Date(base + order++ * 10_000), count],
    );
    return rows.map((row) => row.id);
  };
  const running = async (agentId: string) =>
    (await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND status = 'running'`, [agentId])).rows[0]!.n;

  it('an ending left uncommitted holds up no other claim of its lane', async () => {
    const ws = await workspace();
    const agentId = await agent(ws, 3);
    const [first] = await enqueue(ws, agentId, 5);
    const a = queue('runner-a');
    expect((await a.claimLane(`agent:${agentId}`, 1)).started.map((run) => run.id)).toEqual([first]);
    const ending = new Client({ connectionString: t.db.url });
    await ending.connect();
    try {
      await ending.query('BEGIN');
      await ending.query(`SELECT run_queue_end($1::uuid, 'runner-a', 'completed', NULL, NULL, NULL, 60000, 0)`, [first]);
      // Before decision 0054 this claim waited on the lane's lock until the ending committed.
      const claimed = await Promise.race([
        queue('runner-b').claimLane(`agent:${agentId}`, 10),
        new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 3000).unref()),
      ]);
      expect(claimed).not.toBe('blocked');
      // The ending's own slot is still held by its transaction: the two other slots are taken.
      expect(claimed === 'blocked' ? [] : claimed.started).toHaveLength(2);
      await ending.query('COMMIT');
    } finally {
      await ending.end();
    }
    expect((await queue('runner-c').claimLane(`agent:${agentId}`, 10)).started).toHaveLength(1);
    expect(await running(agentId)).toBe(3);
  });

  it('a lane of concurrency 1,000 starts 1,000 runs in one claim, and never more', async () => {
    const ws = await workspace();
    const agentId = await agent(ws, 1000);
    await enqueue(ws, agentId, 1200);
    const claim = await queue('runner-a').claimLane(`agent:${agentId}`, 5000);
    expect(claim.started).toHaveLength(1000);
    expect((await queue('runner-b').claimLane(`agent:${agentId}`, 5000)).started).toEqual([]);
    expect(await running(agentId)).toBe(1000);
  });

  it('concurrent claims and endings of one lane never run more than its concurrency, and every run runs once', async () => {
    const ws = await workspace();
    const agentId = await agent(ws, 20);
    const ids = await enqueue(ws, agentId, 400);
    const owners = Array.from({ length: 4 }, (_, i) => ({ name: `runner-${i}`, queue: queue(`runner-${i}`) }));
    const starts = new Map<string, number>();
    let peak = 0;
    const worker = async (owner: (typeof owners)[number]) => {
      let held = (await owner.queue.claimLane(`agent:${agentId}`, 10)).started.map((run) => run.id);
      while (held.length > 0) {
        for (const id of held) starts.set(id, (starts.get(id) ?? 0) + 1);
        peak = Math.max(peak, await running(agentId));
        const next: string[] = [];
        for (const id of held) {
          const ended = await owner.queue.end(id, { status: 'completed', reason: null, outcome: null, error: null }, 1);
          expect(ended.ended).toBe(true);
          next.push(...ended.started.map((run) => run.id));
        }
        if (next.length === 0) next.push(...(await owner.queue.claimLane(`agent:${agentId}`, 10)).started.map((run) => run.id));
        held = next;
      }
    };
    await Promise.all(owners.map(worker));
    // A claim that met every slot locked starts nothing; the sweep's claim takes what is left.
    for (;;) {
      const rest = (await owners[0]!.queue.claimLane(`agent:${agentId}`, 20)).started.map((run) => run.id);
      if (rest.length === 0) break;
      for (const id of rest) {
        starts.set(id, (starts.get(id) ?? 0) + 1);
        await owners[0]!.queue.end(id, { status: 'completed', reason: null, outcome: null, error: null }, 0);
      }
    }
    expect(peak).toBeLessThanOrEqual(20);
    // Endings claim across lanes (the fair order): runs of other tests' lanes may start here too.
    expect(ids.every((id) => starts.get(id) === 1)).toBe(true);
  });

  it('a claim starts the run of the workspace with fewest runs in flight first, whatever another has queued', async () => {
    const busy = await workspace();
    const busyAgent = await agent(busy, 5);
    const busyRuns = await enqueue(busy, busyAgent, 2000);
    expect((await queue('runner-a').claimLane(`agent:${busyAgent}`, 2)).started).toHaveLength(2);
    // Queued after the busy workspace's 2,000: the fair order still takes it first.
    const quiet = await workspace();
    const quietAgent = await agent(quiet, 1);
    const [quietRun] = await enqueue(quiet, quietAgent, 1);
    const claim = await queue('runner-b').claim(busyRuns[1999]!, 1);
    expect(claim.started.map((run) => run.id)).toEqual([quietRun]);
    // With room for more, the busy workspace's oldest runs fill its lane's free slots.
    const more = await queue('runner-b').claim(busyRuns[1999]!, 10);
    expect(more.started.map((run) => run.id)).toEqual(busyRuns.slice(2, 5));
  });

  it('a workspace never has more runs in flight than its max_concurrent_runs', async () => {
    const ws = await workspace(4);
    const agents = [await agent(ws, 10), await agent(ws, 10)];
    for (const agentId of agents) await enqueue(ws, agentId, 10);
    const [first] = await enqueue(ws, agents[0]!, 1);
    expect((await queue('runner-a').claim(first!, 50)).started).toHaveLength(4);
    expect((await queue('runner-a').claim(first!, 50)).started).toEqual([]);
    const { rows } = await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE workspace_id = $1 AND status = 'running'`, [ws]);
    expect(rows[0]!.n).toBe(4);
  });
});
