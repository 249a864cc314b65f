import { Cron } from 'croner';
import { AppError, ErrorCode } from '@switchyard/contracts';

/** When a schedule fires: a five-field cron in an IANA zone, or a fixed interval counted from an anchor. */
export type ScheduleTiming = { cron: string; timezone: string } | { everyMs: number; anchor: Date };

/** How many missed slots are counted one by one before the count stops growing (a long-dead cron of every minute). */
export const MAX_COUNTED_SLOTS = 100_000;

const invalid = (field: string, reason: string) => new AppError(ErrorCode.SCHEDULE_INVALID, `the schedule's ${field} cannot be used: ${reason}`, { field, reason });

/**
 * A paused croner job for a cron timing: croner computes the next slot in the
 * zone and owns daylight-saving behaviour (docs/schedules.md pins it: a time
 * in the spring-forward gap fires at the first instant after the gap; a time
 * the fall-back repeats fires once, at its first occurrence; sub-hourly
 * patterns fire at every absolute instant that matches).
 */
function cronOf(cron: string, timezone: string): Cron {
  try {
    return new Cron(cron.trim(), { timezone, paused: true, mode: '5-part' });
  } catch (error) {
    throw invalid('cron', error instanceof Error ? error.message.slice(0, 300) : 'does not parse');
  }
}

/**
 * Checks a timing before it is stored: the cron parses and fires at least
 * once from `now`, in a zone the cron library knows.
 * @throws AppError SCHEDULE_INVALID `{field, reason}`
 */
export function assertTiming(timing: ScheduleTiming, now: Date): void {
  if (!('cron' in timing)) return;
  let next: Date | null;
  try {
    next = cronOf(timing.cron, timing.timezone).nextRun(now);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalid('timezone', error instanceof Error ? error.message.slice(0, 300) : 'unknown time zone');
  }
  if (!next) throw invalid('cron', 'it never fires');
}

/** The first slot strictly after `after`; null when there is none. */
export function nextSlot(timing: ScheduleTiming, after: Date): Date | null {
  if ('cron' in timing) return cronOf(timing.cron, timing.timezone).nextRun(after);
  const { everyMs, anchor } = timing;
  const since = after.getTime() - anchor.getTime();
  const steps = since < 0 ? 0 : Math.floor(since / everyMs) + 1;
  return new Date(anchor.getTime() + steps * everyMs);
}

/** What is due at `now` for a schedule whose next slot was `due`. */
export interface DueSlots {
  /** The latest slot at or before now: the one an on-time fire or a catch-up is for. */
  latest: Date;
  /** The slot before `latest` when more than one is due (a `fire_once` catch-up's slot when `latest` fires on time). */
  beforeLatest: Date | null;
  /** Slots from `due` up to now, `latest` included (capped at MAX_COUNTED_SLOTS for a cron). */
  count: number;
  /** The first slot after now: the schedule's next fire. */
  next: Date | null;
}

/** The slots from `due` (the stored next slot, at or before now) up to `now`. */
export function dueSlots(timing: ScheduleTiming, due: Date, now: Date): DueSlots {
  if (!('cron' in timing)) {
    const count = Math.floor((now.getTime() - due.getTime()) / timing.everyMs) + 1;
    const latest = new Date(due.getTime() + (count - 1) * timing.everyMs);
    const beforeLatest = count > 1 ? new Date(latest.getTime() - timing.everyMs) : null;
    return { latest, beforeLatest, count, next: new Date(latest.getTime() + timing.everyMs) };
  }
  const job = cronOf(timing.cron, timing.timezone);
  let latest = due;
  let beforeLatest: Date | null = null;
  let count = 1;
  let next = job.nextRun(due);
  while (next && next.getTime() <= now.getTime() && count < MAX_COUNTED_SLOTS) {
    beforeLatest = latest;
    latest = next;
    count += 1;
    next = job.nextRun(next);
  }
  // A schedule dead for longer than the counted slots: jump to the slots around now.
  if (next && next.getTime() <= now.getTime()) next = job.nextRun(now);
  return { latest, beforeLatest, count, next };
}

/** An instant as the wall-clock time of a zone: `2026-03-29 03:00 (Europe/Paris)`. */
export function localTime(instant: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')} ${part('timeZoneName')}`;
}

/** A stored schedule's timing: its cron in its zone, or its interval from its anchor. */
export function timingOf(schedule: { cron: string | null; everyMs: number | null; timezone: string; anchorAt: Date }): ScheduleTiming {
  if (schedule.cron !== null) return { cron: schedule.cron, timezone: schedule.timezone };
  if (schedule.everyMs === null) throw new Error('a schedule has a cron or an interval');
  return { everyMs: schedule.everyMs, anchor: schedule.anchorAt };
}
