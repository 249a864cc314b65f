import type { Client } from 'pg';
import { AcceptedFactSchema, type AcceptedFact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';

/*
 * Why this exists: the scheduler fires what the gateway stored. Its tests
 * arrange `schedules` rows directly in SQL, as the gateway leaves them, and
 * read back the fires and the facts it wrote to the outbox, parsed with the
 * contracts.
 */

/** A schedule row as the gateway's create leaves it. */
export interface ScheduleFixture {
  workspaceId: string;
  cron?: string;
  everyMs?: number;
  timezone?: string;
  missed?: 'skip' | 'fire_once';
  nextFireAt: Date;
  anchorAt?: Date;
  emit?: Record<string, unknown>;
}

/** Inserts a schedule; its id. */
export async function seedSchedule(pg: Client, schedule: ScheduleFixture): Promise<string> {
  const id = newId();
  await pg.query(
    `INSERT INTO schedules (id, workspace_id, name, cron, every_ms, timezone, enabled, emit, missed, anchor_at, next_fire_at)
     VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $10)`,
    [
      id,
      schedule.workspaceId,
      `s-${id.slice(-10)}`,
      schedule.cron ?? null,
      schedule.everyMs ?? null,
      schedule.timezone ?? 'UTC',
      JSON.stringify(schedule.emit ?? { kind: 'schedule.fired', payload: {} }),
      schedule.missed ?? 'skip',
      schedule.anchorAt ?? schedule.nextFireAt,
      schedule.nextFireAt,
    ],
  );
  return id;
}

/** The fires of a schedule, oldest slot first. */
export async function firesOf(pg: Client, scheduleId: string): Promise<Array<{ factId: string; slotAt: string; late: boolean }>> {
  const { rows } = await pg.query(`SELECT fact_id::text AS "factId", slot_at AS "slotAt", late FROM schedule_fires WHERE schedule_id = $1 ORDER BY slot_at, late DESC`, [scheduleId]);
  return rows.map((row) => ({ ...row, slotAt: (row.slotAt as Date).toISOString() }));
}

/** The facts in the outbox whose subject is the schedule, in order. */
export async function scheduleFactsIn(pg: Client, scheduleId: string): Promise<AcceptedFact[]> {
  const { rows } = await pg.query(
    `SELECT o.id::text AS id, w.slug AS workspace, o.workspace_id::text AS "workspaceId", o.kind, o.subject_type, o.subject_id, o.actor, o.payload, o.idempotency_key AS "idempotencyKey", o.ts
       FROM fact_outbox o JOIN workspaces w ON w.id = o.workspace_id
      WHERE o.payload->'schedule'->>'id' = $1 ORDER BY o.position`,
    [scheduleId],
  );
  return rows.map((row) => {
    const { subject_type: type, subject_id: id, ts, ...rest } = row;
    return AcceptedFactSchema.parse({ ...rest, subject: { type, id }, ts: ts.toISOString() });
  });
}

/** The schedule's stored next slot and count of passed-over slots. */
export async function scheduleState(pg: Client, scheduleId: string): Promise<{ nextFireAt: string | null; skippedSlots: number }> {
  const { rows } = await pg.query(`SELECT next_fire_at, skipped_slots FROM schedules WHERE id = $1`, [scheduleId]);
  return { nextFireAt: rows[0].next_fire_at?.toISOString() ?? null, skippedSlots: rows[0].skipped_slots };
}
