import { canonicalJson } from './canonical-json';

/** One RFC 6902 operation a diff writes. */
export type JsonDiffOperation = { op: 'add'; path: string; value: unknown } | { op: 'remove'; path: string } | { op: 'replace'; path: string; value: unknown };

/** A JSON Pointer token (RFC 6901): `~` and `/` escaped. */
const token = (key: string | number) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether two values are the same JSON (key order aside). */
const sameJson = (a: unknown, b: unknown) => a === b || canonicalJson(a) === canonicalJson(b);

/**
 * The JSON Patch (RFC 6902) that turns `from` into `to`: objects are compared
 * key by key (sorted, so the patch is the same whatever the key order),
 * arrays element by element (a longer array adds at the end, a shorter one
 * removes from the end, last index first, so every path is valid when its
 * operation is applied), anything else is replaced whole.
 */
export function jsonDiff(from: unknown, to: unknown, path = ''): JsonDiffOperation[] {
  if (sameJson(from, to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: JsonDiffOperation[] = [];
    for (const key of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort()) {
      const here = `${path}/${token(key)}`;
      if (to[key] === undefined) {
        if (from[key] !== undefined) ops.push({ op: 'remove', path: here });
      } else if (from[key] === undefined) ops.push({ op: 'add', path: here, value: to[key] });
      else ops.push(...jsonDiff(from[key], to[key], here));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: JsonDiffOperation[] = [];
    const shared = Math.min(from.length, to.length);
    for (let index = 0; index < shared; index++) ops.push(...jsonDiff(from[index], to[index], `${path}/${index}`));
    for (let index = shared; index < to.length; index++) ops.push({ op: 'add', path: `${path}/${index}`, value: to[index] });
    for (let index = from.length - 1; index >= shared; index--) ops.push({ op: 'remove', path: `${path}/${index}` });
    return ops;
  }
  return [{ op: 'replace', path, value: to }];
}

/** The top-level keys of two objects whose values differ (added and removed ones included), sorted. */
export function changedTopLevelFields(from: Record<string, unknown>, to: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(from), ...Object.keys(to)])].filter((key) => !sameJson(from[key], to[key])).sort();
}
