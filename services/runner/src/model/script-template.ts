import type { Fact } from '@switchyard/contracts';

/** A JSON value, as script arguments hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// `{{ event }}`, `{{ event.a.b }}` or `{{ input }}`; other `{{…}}` text is not a placeholder and stays as written.
const PLACEHOLDER = /\{\{\s*(event(?:\.[^.{}\s]+)*|input)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*(event(?:\.[^.{}\s]+)*|input)\s*\}\}$/;

/**
 * Renders a script step's arguments over the activating fact, deeply (object
 * values and array items; keys are not templates). Placeholders name a path
 * in the fact: `{{event.id}}`, `{{event.kind}}`, `{{event.subject.id}}`,
 * `{{event.actor.id}}`, `{{event.payload.a.b}}`, `{{event.payload.items.0}}`;
 * `{{input}}` is a manual run's input (kept by its retries), as a string.
 *
 * - A string that is exactly one placeholder becomes the value itself, with
 *   its JSON type: `"{{event.payload.count}}"` → `3`, an object stays an object.
 * - A placeholder inside longer text is replaced by the value as text:
 *   strings as they are, anything else as JSON.
 * - A missing path (or no fact: a manual run) renders as the empty string, in
 *   both forms, so a script never fails on an absent field; a `when` condition
 *   is the way to skip a step that needs one.
 *
 * Paths walk own properties only (never `__proto__` or `constructor`), and a
 * segment of digits indexes an array, as in the trigger filter language.
 */
export function renderArguments(value: JsonValue, fact: Fact | null, input: string | null = null): JsonValue {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) {
      // `null` is a present value and stays null; only a missing path becomes ''.
      const found = lookup(fact, input, whole[1]!) as JsonValue | undefined;
      return found === undefined ? '' : found;
    }
    return renderText(value, fact, input);
  }
  if (Array.isArray(value)) return value.map((item) => renderArguments(item, fact, input));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderArguments(item, fact, input)]));
  }
  return value;
}

/** Renders every placeholder of `text` as text (see renderArguments); used for `say`. */
export function renderText(text: string, fact: Fact | null, input: string | null = null): string {
  return text.replace(PLACEHOLDER, (_match, path: string) => {
    const value = lookup(fact, input, path);
    if (value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The value at `event.<path>` in the fact, or the input for `input`; undefined when missing. */
function lookup(fact: Fact | null, input: string | null, path: string): unknown {
  if (path === 'input') return input ?? undefined;
  if (!fact) return undefined;
  let current: unknown = fact;
  for (const segment of path.split('.').slice(1)) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}
