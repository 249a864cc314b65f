import type { MissedPolicy } from '@switchyard/contracts';
import { dueSlots, type ScheduleTiming } from '@switchyard/core';

/** What the scheduler does for one due schedule at one look. */
export interface FirePlan {
  /** Slots to fire now, oldest first: at most a late catch-up and the on-time slot. */
  fires: Array<{ slotAt: Date; late: boolean }>;
  /** Slots passed over without a fire of their own. */
  skipped: number;
  /** The schedule's next slot after now. */
  next: Date | null;
}

/**
 * Which slots of a due schedule fire (docs/schedules.md): the latest slot
 * fires on time while it is at most `graceMs` old; every older due slot was
 * missed (the scheduler was down or behind). `skip` passes the missed slots
 * over, counted; `fire_once` fires the most recent missed slot once, marked
 * `late`, and counts the others as passed over.
 */
export function planFires(schedule: { timing: ScheduleTiming; missed: MissedPolicy; due: Date }, now: Date, graceMs: number): FirePlan {
  const due = dueSlots(schedule.timing, schedule.due, now);
  const onTime = now.getTime() - due.latest.getTime() <= graceMs;
  const missedCount = due.count - (onTime ? 1 : 0);
  const fires: FirePlan['fires'] = [];
  let skipped = missedCount;
  if (missedCount > 0 && schedule.missed === 'fire_once') {
    const lastMissed = onTime ? due.beforeLatest : due.latest;
    if (lastMissed) {
      fires.push({ slotAt: lastMissed, late: true });
      skipped -= 1;
    }
  }
  if (onTime) fires.push({ slotAt: due.latest, late: false });
  return { fires, skipped, next: due.next };
}
