/*
 * platform_events has one partition per UTC week, Monday 00:00 UTC to the next, named after its
 * Monday (decision 0041): the same reckoning as `platform_events_make_partition` in migration
 * `retention` and PostgreSQL's `date_trunc('week', …)`.
 */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the UTC day `days` after `now`'s. */
export function utcDay(now: Date, days = 0): string {
  return new Date(now.getTime() + days * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` of the Monday of the UTC week holding a day (`YYYY-MM-DD`). */
export function partitionWeek(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** The name of the partition holding a day (`YYYY-MM-DD`). */
export function partitionNameOf(day: string): string {
  return `platform_events_p${partitionWeek(day).replaceAll('-', '')}`;
}
