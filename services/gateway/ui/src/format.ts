import type { Run } from './types';

/** A run's duration so far (or in all), as `1.2 s`, `3 min 4 s`; empty before it started. */
export function durationOf(run: Pick<Run, 'startedAt' | 'endedAt'>, now = Date.now()): string {
  if (!run.startedAt) return '';
  const ms = (run.endedAt ? Date.parse(run.endedAt) : now) - Date.parse(run.startedAt);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** USD with enough digits for model calls. */
export function usd(amount: number | undefined): string {
  if (amount === undefined) return '';
  return amount >= 1 ? `$${amount.toFixed(2)}` : `$${amount.toFixed(4)}`;
}

/** A timestamp as local time, with the date when it is not today. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

/** The first characters of an id, enough to tell runs apart on a screen. */
export function shortId(id: string): string {
  return id.slice(-8);
}

/**
 * A person as the UI names them (decision 0042): the name recorded with what
 * they did, else their name among the members now, else "a former member"
 * with the end of their id (someone removed whose name was not recorded).
 */
export function personName(userId: string, recorded: string | undefined, members: ReadonlyArray<{ userId: string; name: string }> | undefined): string {
  return recorded ?? members?.find((m) => m.userId === userId)?.name ?? `a former member (${shortId(userId)})`;
}

/** Who a fact says did it: a person by name (recorded, else as a member now); anyone else as before. */
export function actorLabel(actor: { type: string; id: string; name?: string }, members: ReadonlyArray<{ userId: string; name: string }> | undefined): string {
  if (actor.type === 'member') return personName(actor.id, actor.name, members);
  return `${actor.type} ${String(actor.id).slice(-8)}`;
}
