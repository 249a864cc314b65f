import type { Fact, Run } from './types';

/**
 * A run's duration so far (or in all), as `1.2 s`, `3 min 4 s`; empty before
 * it started. `firstStartedAt`: when it first started, if earlier than
 * `startedAt` — a resumed run's `startedAt` is its resume, so its whole
 * duration counts from its first transcript entry.
 */
export function durationOf(run: Pick<Run, 'startedAt' | 'endedAt'>, now = Date.now(), firstStartedAt?: string): string {
  if (!run.startedAt) return '';
  const started = Math.min(Date.parse(run.startedAt), firstStartedAt ? Date.parse(firstStartedAt) : Infinity);
  const ms = (run.endedAt ? Date.parse(run.endedAt) : now) - started;
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

/** What the page knows to name actors by: the workspace's members, and agents' names. */
export interface ActorNames {
  members?: ReadonlyArray<{ userId: string; name: string }>;
  agentName?: (id: string) => string | undefined;
}

/**
 * Who recorded a fact, for people: a person by name (recorded, else as a
 * member now); the platform itself (`system`) as "Switchyard" (with the part
 * of it, when not the whole, or the name it recorded); an agent by its name;
 * a service by its id; else the kind and the end of the id.
 */
export function actorLabel(actor: Fact['actor'], names: ActorNames = {}): string {
  if (!actor) return '';
  if (actor.type === 'member') return personName(actor.id, actor.name, names.members);
  if (actor.name) return actor.name;
  if (actor.type === 'system') return actor.id === 'switchyard' ? 'Switchyard' : `Switchyard (${actor.id})`;
  if (actor.type === 'agent') return `agent ${names.agentName?.(actor.id) ?? shortId(actor.id)}`;
  if (actor.type === 'service') return `service ${actor.id}`;
  return `${actor.type} ${shortId(actor.id)}`;
}

/**
 * A tool call's arguments as readable JSON. Models send them as a JSON
 * string (the OpenAI wire format); printing that string as JSON again showed
 * every quote escaped, so a string that parses is shown as what it holds.
 */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}
