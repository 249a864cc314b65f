import v8 from 'node:v8';

/**
 * Caps how far V8 lets the old generation grow past what a full collection
 * found live: the next full collection starts at (1 + percent / 100) times
 * that. Why: a run in flight keeps its request, stream and promises across a
 * model call of seconds, so they outlive the young generation and die in the
 * old one; V8's own factor (up to 4× when collections are cheap) then lets
 * that garbage hold several times the live heap in RSS — at 1,000 runs in
 * flight, ~50 KiB live a run under 300–370 KiB of RSS (docs/perf/inflight.md).
 * 0 keeps V8's own factor. The flag is read at each collection, so setting
 * it at start takes effect; it is the process's, so a one-process platform
 * (`npm start`) applies it to every service in it.
 */
export function capHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
