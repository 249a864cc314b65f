/** What a redacted secret value is replaced with. */
export const REDACTED = '[redacted]';

/**
 * `text` with every occurrence of each known secret value replaced by
 * `[redacted]`: for log lines, transcript entries and error messages that may
 * quote what a model, a tool or a server said. A value is also found in its
 * JSON-escaped form (as it appears inside serialized JSON). Longer values are
 * replaced first, so a value that contains another is not half-redacted.
 * Empty values are ignored.
 */
export function redactSecrets(text: string, values: Iterable<string>): string {
  const needles = new Set<string>();
  for (const value of values) {
    if (value.length === 0) continue;
    needles.add(value);
    needles.add(JSON.stringify(value).slice(1, -1));
  }
  let result = text;
  for (const needle of [...needles].sort((a, b) => b.length - a.length)) {
    if (result.includes(needle)) result = result.split(needle).join(REDACTED);
  }
  return result;
}
