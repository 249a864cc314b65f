import { createHash } from 'node:crypto';

/**
 * The canonical JSON text of a value (decision 0046): object keys sorted by
 * UTF-16 code units, no whitespace, keys whose value is `undefined` left out
 * (as JSON.stringify does), strings and numbers as JSON.stringify writes them
 * (RFC 8785 for the JSON a spec holds: finite numbers, no duplicate keys). Two
 * values that are the same JSON, whatever their key order, have one text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // A bare undefined (or a function) has no JSON: as an array element JSON.stringify writes null.
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/**
 * An agent spec's hash: `sha256:` and the hex SHA-256 of its canonical JSON.
 * Give it the spec as stored (parsed, defaults filled in, no `enabled`), so an
 * export, an import and the next export agree.
 */
export function specHash(spec: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(spec), 'utf8').digest('hex')}`;
}
