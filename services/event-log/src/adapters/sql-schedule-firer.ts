import { recordFacts, fireParams, INSERT_FIRES_SQL, SCHEDULE_COLUMNS, scheduleFromRow, type FireToWrite, type ScheduleRow, type SqlPool } from '@switchyard/db';
import { SCHEDULER_ACTOR, scheduleFireFact, slotKeyOf, timingOf } from '@switchyard/core';
import type { AcceptedFact } from '@switchyard/contracts';
import { planFires } from '../schedules/plan-fires';
import type { ScheduleFirer, SchedulerTick } from '../schedules/scheduler';

/** The due schedules, oldest slot first; one claimed by another process is passed over, not waited for. */
const CLAIM_DUE_SQL = `SELECT ${SCHEDULE_COLUMNS}, w.slug
  FROM schedules s JOIN workspaces w ON w.id = s.workspace_id
  WHERE s.enabled AND s.next_fire_at <= $1
  ORDER BY s.next_fire_at LIMIT $2
  FOR UPDATE OF s SKIP LOCKED`;

/** Whether a schedule is due: the look of a tick that finds none is this one statement, not a transaction of three. */
const ANY_DUE_SQL = `SELECT EXISTS (SELECT 1 FROM schedules WHERE enabled AND next_fire_at <= $1) AS due`;

/** Advances each claimed schedule to its next slot and counts what it passed over. */
const ADVANCE_SQL = `UPDATE schedules s SET next_fire_at = u.next_fire_at, skipped_slots = s.skipped_slots + u.skipped
  FROM unnest($1::uuid[], $2::timestamptz[], $3::int[]) AS u(id, next_fire_at, skipped)
  WHERE s.id = u.id`;

/**
 * Fires due schedules on PostgreSQL: in one transaction it claims a batch of
 * due schedules, inserts their fires (a slot already fired is not inserted
 * again), writes the facts of the fires it inserted to the outbox (decision
 * 0024: the event-log's relay stores and publishes them), and advances each
 * schedule's next slot. A process killed before the commit leaves nothing; after
 * it, everything.
 */
export class SqlScheduleFirer implements ScheduleFirer {
  constructor(
    private readonly sql: SqlPool,
    private readonly graceMs: number,
    private readonly correlationId = 'scheduler',
  ) {}

  async fireDue(now: Date, batch: number): Promise<SchedulerTick> {
    // Most ticks find nothing due: they ask without a transaction (BEGIN, claim, COMMIT is three round trips a tick).
    const [probe] = await this.sql.$queryRawUnsafe<Array<{ due: boolean }>>(ANY_DUE_SQL, now);
    if (!probe?.due) return { schedules: 0, fired: 0, duplicates: 0, skipped: 0 };
    return this.sql.transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<Array<ScheduleRow & { slug: string }>>(CLAIM_DUE_SQL, now, batch);
      const tick: SchedulerTick = { schedules: rows.length, fired: 0, duplicates: 0, skipped: 0 };
      if (rows.length === 0) return tick;
      const fires: FireToWrite[] = [];
      const facts = new Map<string, AcceptedFact>();
      const advances: Array<{ id: string; next: Date | null; skipped: number }> = [];
      for (const row of rows) {
        const schedule = scheduleFromRow(row);
        const plan = planFires({ timing: timingOf(schedule), missed: schedule.missed, due: schedule.nextFireAt ?? now }, now, this.graceMs);
        const firing = { ...schedule, workspaceSlug: row.slug };
        for (const { slotAt, late } of plan.fires) {
          const fact = scheduleFireFact(firing, { slotAt, late, manual: false, actor: SCHEDULER_ACTOR, now });
          facts.set(fact.id, fact);
          fires.push({ factId: fact.id, scheduleId: schedule.id, workspaceId: schedule.workspaceId, slotAt, slotKey: slotKeyOf(schedule.id, slotAt), late, manual: false });
        }
        advances.push({ id: schedule.id, next: plan.next, skipped: plan.skipped });
        tick.skipped += plan.skipped;
      }
      const inserted = fires.length === 0 ? [] : await tx.$queryRawUnsafe<Array<{ fact_id: string }>>(INSERT_FIRES_SQL, ...fireParams(fires));
      await recordFacts(
        tx,
        inserted.map(({ fact_id }) => ({ fact: facts.get(fact_id)!, correlationId: this.correlationId })),
      );
      await tx.$executeRawUnsafe(
        ADVANCE_SQL,
        advances.map((a) => a.id),
        advances.map((a) => a.next),
        advances.map((a) => a.skipped),
      );
      tick.fired = inserted.length;
      tick.duplicates = fires.length - inserted.length;
      return tick;
    });
  }
}
