import { SqlPool } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { SqlScheduleFirer } from '../src/adapters/sql-schedule-firer';
import { Scheduler } from '../src/schedules/scheduler';
import { firesOf, scheduleFactsIn, scheduleState, seedSchedule } from './schedule-fixtures';
import { opsTestContext, seedWorkspace } from './ops-fixtures';

/*
 * Issue 30 §1 (schedules), on PostgreSQL: the scheduler's clock is the
 * test's, so slots come without waiting for them. Each slot fires once
 * however many schedulers look at once; missed slots after downtime follow
 * the schedule's policy; each fire is one fact in the outbox, its slot the
 * idempotency key.
 */

const log = createLogger({ service: 'test', level: 'silent' });
const GRACE_MS = 60_000;
const at = (iso: string) => new Date(iso);

describe('scheduler (PostgreSQL)', () => {
  const ctx = opsTestContext();
  const schedulerOn = (sql: SqlPool, graceMs = GRACE_MS) =>
    new Scheduler({ firer: new SqlScheduleFirer(sql, graceMs), log, tickMs: 60_000, batch: 7, clock: () => ctx.now });

  it('*/1 in Europe/Paris with two schedulers looking at once: one fire and one fact per minute, keyed by its slot', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const id = await seedSchedule(ctx.t.pg, { workspaceId: ws.id, cron: '*/1 * * * *', timezone: 'Europe/Paris', nextFireAt: at('2026-12-05T07:00:00Z') });
    const other = new SqlPool({ databaseUrl: ctx.t.db.url, poolMax: 2 });
    try {
      const [a, b] = [schedulerOn(ctx.t.sql), schedulerOn(other)];
      for (let minute = 0; minute < 10; minute++) {
        ctx.now = new Date(Date.UTC(2026, 11, 5, 7, minute, 0, 150));
        // Three looks from each, all at once, every minute.
        await Promise.all([a.tick(), b.tick(), a.tick(), b.tick(), a.tick(), b.tick()]);
      }
    } finally {
      await other.$disconnect();
    }
    const slots = Array.from({ length: 10 }, (_, minute) => new Date(Date.UTC(2026, 11, 5, 7, minute)).toISOString());
    expect((await firesOf(ctx.t.pg, id)).map((fire) => fire.slotAt)).toEqual(slots);
    const facts = await scheduleFactsIn(ctx.t.pg, id);
    expect(facts.map((fact) => fact.idempotencyKey)).toEqual(slots.map((slot) => `schedule:${id}:${slot}`));
    expect(facts[0]).toMatchObject({
      kind: 'schedule.fired',
      subject: { type: 'schedule', id },
      actor: { type: 'system', id: 'switchyard' },
      payload: { schedule: { id, slotAt: slots[0], late: false, manual: false } },
    });
    expect(await scheduleState(ctx.t.pg, id)).toEqual({ nextFireAt: '2026-12-05T07:10:00.000Z', skippedSlots: 0 });
  });

  it('many due schedules, many schedulers at once: every slot of every schedule fires exactly once', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    ctx.now = at('2026-12-05T07:00:00.100Z');
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await seedSchedule(ctx.t.pg, { workspaceId: ws.id, everyMs: 1000, nextFireAt: at('2026-12-05T07:00:00Z') }));
    const pools = [ctx.t.sql, new SqlPool({ databaseUrl: ctx.t.db.url, poolMax: 3 }), new SqlPool({ databaseUrl: ctx.t.db.url, poolMax: 3 })];
    try {
      const schedulers = pools.map((pool) => schedulerOn(pool));
      for (let second = 0; second < 5; second++) {
        ctx.now = new Date(Date.UTC(2026, 11, 5, 7, 0, second, 100));
        await Promise.all(schedulers.flatMap((s) => [s.tick(), s.tick()]));
      }
    } finally {
      await Promise.all(pools.slice(1).map((pool) => pool.$disconnect()));
    }
    const { rows } = await ctx.t.pg.query(`SELECT schedule_id::text AS id, count(*)::int AS n, count(DISTINCT slot_at)::int AS slots FROM schedule_fires GROUP BY schedule_id`);
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) expect(row).toMatchObject({ n: 5, slots: 5 });
    const { rows: facts } = await ctx.t.pg.query(`SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS keys FROM fact_outbox`);
    expect(facts[0]).toEqual({ n: 200, keys: 200 });
  });

  it('missed slots after downtime, skip: the slot in its grace fires on time, the ten before are passed over and counted', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const id = await seedSchedule(ctx.t.pg, { workspaceId: ws.id, cron: '*/1 * * * *', timezone: 'Europe/Paris', nextFireAt: at('2026-12-05T07:01:00Z') });
    ctx.now = at('2026-12-05T07:11:05Z');
    expect(await schedulerOn(ctx.t.sql).tick()).toEqual({ schedules: 1, fired: 1, duplicates: 0, skipped: 10 });
    expect(await firesOf(ctx.t.pg, id)).toEqual([expect.objectContaining({ slotAt: '2026-12-05T07:11:00.000Z', late: false })]);
    expect(await scheduleState(ctx.t.pg, id)).toEqual({ nextFireAt: '2026-12-05T07:12:00.000Z', skippedSlots: 10 });
  });

  it('missed slots after downtime, fire_once: one late catch-up for the last missed slot, then the on-time slot', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const id = await seedSchedule(ctx.t.pg, { workspaceId: ws.id, cron: '*/1 * * * *', timezone: 'Europe/Paris', missed: 'fire_once', nextFireAt: at('2026-12-05T07:01:00Z') });
    ctx.now = at('2026-12-05T07:11:05Z');
    expect(await schedulerOn(ctx.t.sql).tick()).toEqual({ schedules: 1, fired: 2, duplicates: 0, skipped: 9 });
    const facts = await scheduleFactsIn(ctx.t.pg, id);
    expect(facts.map((fact) => fact.payload.schedule)).toEqual([
      expect.objectContaining({ slotAt: '2026-12-05T07:10:00.000Z', late: true }),
      expect.objectContaining({ slotAt: '2026-12-05T07:11:00.000Z', late: false }),
    ]);
    expect(await scheduleState(ctx.t.pg, id)).toEqual({ nextFireAt: '2026-12-05T07:12:00.000Z', skippedSlots: 9 });
  });

  it('every due slot past its grace, fire_once: one late fire for the latest; skip: none', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const once = await seedSchedule(ctx.t.pg, { workspaceId: ws.id, everyMs: 60_000, missed: 'fire_once', nextFireAt: at('2026-12-05T07:00:00Z') });
    const skip = await seedSchedule(ctx.t.pg, { workspaceId: ws.id, everyMs: 60_000, missed: 'skip', nextFireAt: at('2026-12-05T07:00:00Z') });
    ctx.now = at('2026-12-05T07:03:30Z');
    await schedulerOn(ctx.t.sql, 10_000).tick();
    expect(await firesOf(ctx.t.pg, once)).toEqual([expect.objectContaining({ slotAt: '2026-12-05T07:03:00.000Z', late: true })]);
    expect(await firesOf(ctx.t.pg, skip)).toEqual([]);
    expect(await scheduleState(ctx.t.pg, once)).toEqual({ nextFireAt: '2026-12-05T07:04:00.000Z', skippedSlots: 3 });
    expect(await scheduleState(ctx.t.pg, skip)).toEqual({ nextFireAt: '2026-12-05T07:04:00.000Z', skippedSlots: 4 });
  });

  it('a slot fired before (its key taken) is not fired again, and the schedule still advances', async () => {
    const ws = await seedWorkspace(ctx.t.pg);
    const id = await seedSchedule(ctx.t.pg, { workspaceId: ws.id, everyMs: 1000, nextFireAt: at('2026-12-05T07:00:00Z') });
    ctx.now = at('2026-12-05T07:00:00.200Z');
    await schedulerOn(ctx.t.sql).tick();
    // As if a process had fired and then lost its advance: the slot is due again.
    await ctx.t.pg.query(`UPDATE schedules SET next_fire_at = '2026-12-05T07:00:00Z' WHERE id = $1`, [id]);
    expect(await schedulerOn(ctx.t.sql).tick()).toEqual({ schedules: 1, fired: 0, duplicates: 1, skipped: 0 });
    expect(await firesOf(ctx.t.pg, id)).toHaveLength(1);
    expect(await scheduleFactsIn(ctx.t.pg, id)).toHaveLength(1);
  });
});
