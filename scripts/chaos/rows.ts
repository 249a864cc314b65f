/**
 * The rows the checks read, in the shapes the checks take: plain values, so
 * that each check is a pure function a unit test can feed hand-made rows.
 */

/** One stored fact of the workspace (`platform_events`). */
export interface StoredFact {
  id: string;
  seq: number;
  kind: string;
  subjectId: string;
  idempotencyKey: string | null;
  /** The load generator's number for the fact (`payload.n` of a `chaos.*` fact); null for the platform's own facts. */
  n: number | null;
}

/** One run of the workspace (`runs`); times in epoch milliseconds. */
export interface RunRow {
  id: string;
  agentId: string;
  eventId: string | null;
  originType: string;
  status: string;
  reason: string | null;
  startedAt: number | null;
  endedAt: number | null;
  /** Times it went back in line (a lapsed lease continued by another runner: decision 0051). @defaultValue 0 */
  resumes?: number;
}

/** One line of the report: a check, what it expects, what it found. */
export interface CheckResult {
  name: string;
  expected: string;
  found: string;
  pass: boolean;
}

/** A check result from a count that must be zero. */
export function zeroCheck(name: string, found: number, what: string, examples: readonly unknown[] = []): CheckResult {
  const sample = examples.length > 0 ? ` (e.g. ${examples.slice(0, 3).map(String).join(', ')})` : '';
  return { name, expected: `0 ${what}`, found: `${found} ${what}${sample}`, pass: found === 0 };
}
