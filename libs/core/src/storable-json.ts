/** A place in a JSON value: object keys and array indexes from the root. */
export type JsonPath = Array<string | number>;

/** Why a JSON value cannot be accepted as it is. */
export type JsonRefusal =
  | { reason: 'too_deep'; path: JsonPath }
  | { reason: 'unstorable_text'; path: JsonPath; found: 'U+0000' | 'lone surrogate' };

/** What checkStorableJson found: nothing wrong, or the first refusal. */
export type JsonCheck = { ok: true } | ({ ok: false } & JsonRefusal);

/** Any NUL or surrogate half: a cheap first test; only a hit needs the exact one. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The text PostgreSQL cannot store in `text` or `jsonb`, if `text` has any. */
export function unstorableIn(text: string): 'U+0000' | 'lone surrogate' | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (text.includes('\u0000')) return 'U+0000';
  return LONE_SURROGATE.test(text) ? 'lone surrogate' : undefined;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

/**
 * Walks a parsed JSON value iteratively (an explicit stack, so no depth can
 * overflow the call stack) and reports the first array or object nested
 * deeper than `maxDepth` (the value itself is level 1), or the first string
 * value or object key holding U+0000 or a lone UTF-16 surrogate — text that
 * PostgreSQL refuses, so a fact carrying it could be acknowledged and never
 * stored. The path of a key names the key itself.
 */
export function checkStorableJson(value: unknown, maxDepth: number): JsonCheck {
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string') {
      const found = unstorableIn(current);
      if (found) return { ok: false, reason: 'unstorable_text', path: pathOf(frame), found };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (frame.depth > maxDepth) return { ok: false, reason: 'too_deep', path: pathOf(frame) };
    const depth = frame.depth + 1;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], depth, parent: frame, key: i });
      continue;
    }
    for (const key of Object.keys(current)) {
      const found = unstorableIn(key);
      if (found) return { ok: false, reason: 'unstorable_text', path: [...pathOf(frame), key], found };
      stack.push({ value: (current as Record<string, unknown>)[key], depth, parent: frame, key });
    }
  }
  return { ok: true };
}

function pathOf(frame: Frame): JsonPath {
  const path: JsonPath = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}
