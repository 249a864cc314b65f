import { OPS_FACT_KINDS } from '@switchyard/contracts';
import { agentLane } from '@switchyard/runs';
import { SqlPool } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { setRunColumns } from '@switchyard/testing';
import { SqlOpsStore } from '../src/adapters/sql-ops-store';
import { OpsWatcher, type OpsThresholds } from '../src/ops/ops-watcher';
import { insertLetter, insertRuns, opsFactsIn, opsTestContext, seedAgent, seedWorkspace } from './ops-fixtures';

/*
 * Issue 36 (ops facts), on PostgreSQL: a backlogged lane is one fact per
 * window however many times the watcher looks, its recovery one more; a
 * condition that lasts three windows is three facts; two watchers looking
 * at once record one; the marks of closed conditions are forgotten once
 * they limit nothing. The watcher's clock is the test's, so windows pass
 * without waiting for them.
 */

const log = createLogger({ service: 'test', level: 'silent' });
const WINDOW_MS = 60_000;
const THRESHOLDS: OpsThresholds = { backlogDepth: 5, deadLetters: 1, modelErrors: 2 };

describe('ops watcher (PostgreSQL)', () => {
  const ctx = opsTestContext();

  const watcherOn = (sql: SqlPool) => new OpsWatcher({ store: new SqlOpsStore(sql), log, thresholds: THRESHOLDS, windowMs: WINDOW_MS, intervalMs: 60_000, clock: () => ctx.now });
  const later = (ms: number) => (ctx.now = new Date(ctx.now.getTime() + ms));
  const cancel = (ids: string[]) => setRunColumns(ctx.t.pg, ids, { status: 'cancelled', reason: 'stopped', ended_at: new Date() });

  it('a backlogged lane: one fact with its depth, none for a lane below the threshold, none again within the window; its recovery once it drains below half', async () => {
    const ws = await seedWorkspace(ctx.t.pg, 'acme');
    const busy = await seedAgent(ctx.t.pg, ws);
    const calm = await seedAgent(ctx.t.pg, ws);
    const queued = await insertRuns(ctx.t.pg, ws, busy, 6, { queuedAt: new Date(Date.now() - 42_000) });
    await insertRuns(ctx.t.pg, ws, calm, 4);
    const watcher = watcherOn(ctx.t.sql);

    expect(await watcher.tick()).toEqual({ recorded: 1, suppressed: 0 });
    const [backlog] = await opsFactsIn(ctx.t.pg, OPS_FACT_KINDS.queueBacklogged);
    expect(backlog).toMatchObject({
      workspace: 'acme',
      subject: { type: 'platform', id: `lane:agent:${busy}` },
      actor: { type: 'system', id: 'switchyard' },
      ts: ctx.now.toISOString(),
      payload: { lane: agentLane(busy), agentId: busy, depth: 6, threshold: 5, windowMs: WINDOW_MS },
    });
    expect(backlog!.payload.oldestAgeMs).toBeGreaterThanOrEqual(41_000);
    expect(backlog!.payload.summary).toContain('6 queued runs');
    const since = ctx.now.toISOString();

    later(1000);
    expect(await watcher.tick()).toEqual({ recorded: 0, suppressed: 1 });
    // Down to 3: below the threshold, not below half of it (3): neither backlogged nor recovered.
    await cancel(queued.slice(0, 3));
    later(1000);
    expect(await watcher.tick()).toEqual({ recorded: 0, suppressed: 0 });
    await cancel(queued.slice(3, 4));
    later(1000);
    expect(await watcher.tick()).toEqual({ recorded: 1, suppressed: 0 });
    const [recovered, ...more] = await opsFactsIn(ctx.t.pg, OPS_FACT_KINDS.queueRecovered);
    expect(more).toEqual([]);
    expect(recovered).toMatchObject({
      subject: { type: 'platform', id: `lane:agent:${busy}` },
      payload: { lane: agentLane(busy), agentId: busy, depth: 2, threshold: 5, recoveredBelow: 3, backloggedSince: since },
    });
    later(1000);
    expect(await watcher.tick()).toEqual({ recorded: 0, suppressed: 0 });

    // Backlogged again within the window of the first fact: suppressed; once the window passed, recorded.
    await insertRuns(ctx.t.pg, ws, busy, 5);
    later(1000);
    expect(await watcher.tick()).toEqual({ recorded: 0, suppressed: 1 });
    later(WINDOW_MS);
    expect(await watcher.tick()).toEqual({ recorded: 1, suppressed: 0 });
    expect(await opsFactsIn(ctx.t.pg)).toHaveLength(3);
  });

  it('a backlog that lasts three windows, looked at ten times a window, records three facts a window apart', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    await insertRuns(ctx.t.pg, ws, await seedAgent(ctx.t.pg, ws), 7);
    const watcher = watcherOn(ctx.t.sql);
    const start = ctx.now.getTime();
    let suppressed = 0;
    for (let look = 0; look < 30; look++) {
      ctx.now = new Date(start + look * (WINDOW_MS / 10));
      suppressed += (await watcher.tick()).suppressed;
    }
    const facts = await opsFactsIn(ctx.t.pg, OPS_FACT_KINDS.queueBacklogged);
    expect(facts.map((fact) => Date.parse(fact.ts) - start)).toEqual([0, WINDOW_MS, 2 * WINDOW_MS]);
    expect(suppressed).toBe(27);
  });

  it('two watchers looking at once, on connections of their own, record one fact of each kind', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const agent = await seedAgent(ctx.t.pg, ws);
    await insertRuns(ctx.t.pg, ws, agent, 6);
    await insertRuns(ctx.t.pg, ws, agent, 2, { status: 'failed', reason: 'model_unavailable', endedAt: new Date() });
    await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'notifier', workspaceId: ws.id });
    const [lapsed] = await insertRuns(ctx.t.pg, ws, await seedAgent(ctx.t.pg, ws), 1, { status: 'running', leaseOwner: 'gone-1', leaseUntil: new Date(Date.now() - 5000) });
    const { rows } = await ctx.t.pg.query<{ lane: string }>('SELECT lane FROM runs WHERE id = $1', [lapsed]);
    await ctx.t.pg.query(`SELECT run_queue_claim_lane($1, 'live-1', 30000, 0)`, [rows[0]!.lane]);

    const other = new SqlPool({ databaseUrl: ctx.t.db.url, poolMax: 2 });
    try {
      const watchers = [watcherOn(ctx.t.sql), watcherOn(other)];
      for (let round = 0; round < 5; round++) {
        const ticks = await Promise.all(watchers.map((watcher) => watcher.tick()));
        expect(ticks.reduce((sum, tick) => sum + tick.recorded, 0)).toBe(round === 0 ? 4 : 0);
        later(1000);
      }
    } finally {
      await other.$disconnect();
    }
    const kinds = (await opsFactsIn(ctx.t.pg)).map((fact) => fact.kind).sort();
    expect(kinds).toEqual([OPS_FACT_KINDS.deadLettersGrowing, OPS_FACT_KINDS.modelErrors, OPS_FACT_KINDS.queueBacklogged, OPS_FACT_KINDS.runnerLost]);
    expect(Number((await ctx.t.pg.query('SELECT count(*) FROM run_lease_lapses')).rows[0].count)).toBe(0);
  });

  it('a watcher that does not lead looks at nothing', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    await insertRuns(ctx.t.pg, ws, await seedAgent(ctx.t.pg, ws), 6);
    const standby = new OpsWatcher({ store: new SqlOpsStore(ctx.t.sql), log, thresholds: THRESHOLDS, windowMs: WINDOW_MS, intervalMs: 60_000, isLeader: () => false });
    expect(await standby.tick()).toEqual({ recorded: 0, suppressed: 0 });
    expect(await opsFactsIn(ctx.t.pg)).toEqual([]);
  });

  it('forgets the marks of closed conditions once they are a window old, and keeps an open backlog', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const agent = await seedAgent(ctx.t.pg, ws);
    await insertRuns(ctx.t.pg, ws, agent, 2, { status: 'failed', reason: 'model_timeout', endedAt: new Date() });
    await insertRuns(ctx.t.pg, ws, await seedAgent(ctx.t.pg, ws), 6);
    const watcher = watcherOn(ctx.t.sql);
    expect((await watcher.tick()).recorded).toBe(2);
    const marks = async () => (await ctx.t.pg.query<{ kind: string }>('SELECT kind FROM ops_fact_marks ORDER BY kind')).rows.map((row) => row.kind);
    expect(await marks()).toEqual([OPS_FACT_KINDS.modelErrors, OPS_FACT_KINDS.queueBacklogged]);
    const store = new SqlOpsStore(ctx.t.sql);
    expect(await store.prune(ctx.now)).toBe(0);
    expect(await store.prune(new Date(ctx.now.getTime() + 1))).toBe(1);
    expect(await marks()).toEqual([OPS_FACT_KINDS.queueBacklogged]);
  });
});
