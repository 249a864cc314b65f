import { RUN_FACT_KINDS, RUN_FAILURE_CODES, TERMINAL_RUN_STATUSES, type RunStatus } from '@switchyard/contracts';
import { type CheckResult, type RunRow, zeroCheck } from './rows';

/**
 * How far a run's start may follow the kill of the runner that started it:
 * the runner sent the statement before it died, PostgreSQL stamped it on
 * arrival.
 */
export const START_AFTER_KILL_TOLERANCE_MS = 1000;

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);

/**
 * Exactly one run per (agent, fact) the harness expects to match, dropped
 * runs included, and no trigger run for a pair it does not expect.
 * `expected` maps each agent id to the ids of the facts it must run for.
 */
export function checkOneRunPerMatch(expected: ReadonlyMap<string, ReadonlySet<string>>, runs: readonly RunRow[], names: ReadonlyMap<string, string> = new Map()): CheckResult {
  const counts = new Map<string, number>();
  for (const run of runs) {
    if (run.originType !== 'trigger') continue;
    const pair = `${run.agentId}/${run.eventId}`;
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  let pairs = 0;
  let exactlyOne = 0;
  let missing = 0;
  let duplicated = 0;
  const missingOf: string[] = [];
  for (const [agentId, facts] of expected) {
    const missingBefore = missing;
    for (const factId of facts) {
      pairs += 1;
      const count = counts.get(`${agentId}/${factId}`) ?? 0;
      counts.delete(`${agentId}/${factId}`);
      if (count === 1) exactlyOne += 1;
      else if (count === 0) missing += 1;
      else duplicated += 1;
    }
    if (missing > missingBefore) missingOf.push(`${names.get(agentId) ?? agentId} ${missing - missingBefore}`);
  }
  const unexpected = counts.size;
  return {
    name: 'one run per matching (agent, fact)',
    expected: `${pairs} pairs with 1 run each`,
    found: `${exactlyOne} with 1; ${missing} missing${missingOf.length ? ` (${missingOf.join(', ')})` : ''}, ${duplicated} duplicated, ${unexpected} unexpected`,
    pass: exactlyOne === pairs && unexpected === 0,
  };
}

/** The queue-cap agent overflowed: some of its runs were recorded `dropped`. */
export function checkSomeDropped(agentName: string, runs: readonly RunRow[]): CheckResult {
  const dropped = runs.filter((run) => run.status === 'dropped').length;
  return { name: `${agentName}: queue cap overflows to dropped`, expected: '> 0 dropped', found: `${dropped} dropped of ${runs.length}`, pass: dropped > 0 };
}

/** No run left queued, running or parked. */
export function checkSettled(runs: readonly RunRow[]): CheckResult {
  const left = runs.filter((run) => !TERMINAL.has(run.status));
  return zeroCheck('no run left queued/running', left.length, 'unsettled', left.map((r) => `${r.id} ${r.status}`));
}

/**
 * When a run stopped executing: its `ended_at`, except for a `runner_lost`
 * run, which stopped when its runner was killed (the ending is written later,
 * by whoever notices the lapsed slot). The latest runner kill inside its span
 * is taken: kills of the two runners are seconds apart, runs are shorter.
 */
export function executionEnd(run: RunRow, runnerKills: readonly number[]): number {
  const end = run.endedAt ?? Number.POSITIVE_INFINITY;
  if (run.reason !== RUN_FAILURE_CODES.runnerLost || run.startedAt === null) return end;
  const kills = runnerKills.filter((t) => t >= run.startedAt! - START_AFTER_KILL_TOLERANCE_MS && t <= end);
  return kills.length > 0 ? Math.max(run.startedAt, Math.max(...kills)) : end;
}

/** Most runs executing at once, from their start and execution end (an end and a start at the same instant do not overlap). */
export function maxConcurrent(runs: readonly RunRow[], runnerKills: readonly number[]): number {
  const edges: Array<[number, number]> = [];
  for (const run of runs) {
    if (run.startedAt === null) continue;
    edges.push([run.startedAt, 1], [executionEnd(run, runnerKills), -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, delta] of edges) {
    now += delta;
    most = Math.max(most, now);
  }
  return most;
}

/** An agent of concurrency c never had more than c runs executing at once (for c = 1: no two overlapped). */
export function checkConcurrency(agentName: string, concurrency: number, runs: readonly RunRow[], runnerKills: readonly number[]): CheckResult {
  const most = maxConcurrent(runs, runnerKills);
  return { name: `${agentName}: at most ${concurrency} executing at once`, expected: `<= ${concurrency}`, found: `${most}`, pass: most <= concurrency };
}

/** The statuses a run went through, from its row: `queued` (unless dropped at once), `running` if it started, then where it is. */
export function statusesOf(run: RunRow): RunStatus[] {
  if (run.status === 'dropped') return ['dropped'];
  const statuses: RunStatus[] = ['queued'];
  if (run.startedAt !== null) statuses.push('running');
  if (run.status !== 'queued' && run.status !== 'running') statuses.push(run.status as RunStatus);
  return statuses;
}

/** A stored `agent.run.*` fact, as the run-fact check reads it. */
export interface RunFact {
  subjectId: string;
  kind: string;
  idempotencyKey: string | null;
}

/**
 * The facts a run's statuses make, each with its key (runs_status_fact):
 * `run:<id>:<status>`, and `:<resumes>` once the run went back in line — a
 * run whose runner was killed is queued and started again (decision 0051).
 */
export function factKeysOf(run: RunRow): Array<{ kind: string; key: string }> {
  const resumes = run.resumes ?? 0;
  const key = (status: RunStatus, resume: number) => ({ kind: RUN_FACT_KINDS[status], key: `run:${run.id}:${status}${resume > 0 ? `:${resume}` : ''}` });
  const statuses = statusesOf(run);
  const started = statuses.includes('running');
  const ended = statuses.length > (started ? 2 : 1) ? statuses.at(-1)! : null;
  const keys = [key(statuses[0]!, 0)];
  if (started) {
    keys.push(key('running', 0));
    for (let resume = 1; resume <= resumes; resume++) {
      keys.push(key('queued', resume));
      // Started again, unless it is still waiting in line.
      if (resume < resumes || run.status !== 'queued') keys.push(key('running', resume));
    }
  }
  if (ended) keys.push(key(ended, resumes));
  return keys;
}

/**
 * Every status a run went through has its `agent.run.*` fact exactly once,
 * with its key (factKeysOf), and no run has a fact of a status it never had.
 */
export function checkRunFacts(runs: readonly RunRow[], facts: readonly RunFact[]): CheckResult {
  const found = new Map<string, number>();
  for (const fact of facts) {
    const at = `${fact.subjectId}/${fact.kind}/${fact.idempotencyKey}`;
    found.set(at, (found.get(at) ?? 0) + 1);
  }
  let expected = 0;
  let missing = 0;
  let duplicated = 0;
  const kinds = new Set<string>();
  const examples: string[] = [];
  for (const run of runs) {
    for (const { kind, key } of factKeysOf(run)) {
      expected += 1;
      kinds.add(`${run.id}/${kind}`);
      const at = `${run.id}/${kind}/${key}`;
      const count = found.get(at) ?? 0;
      found.delete(at);
      if (count === 0) {
        missing += 1;
        examples.push(`${key} missing`);
      } else if (count > 1) {
        duplicated += 1;
        examples.push(`${key} x${count}`);
      }
    }
  }
  const left = [...found.entries()].map(([at, count]) => ({ pair: at.slice(0, at.lastIndexOf('/')), count }));
  // A fact of a status the run had, under another key; the rest are of statuses it never had.
  const wrongKey = left.filter((fact) => kinds.has(fact.pair)).reduce((sum, fact) => sum + fact.count, 0);
  const unexpected = left.filter((fact) => !kinds.has(fact.pair)).reduce((sum, fact) => sum + fact.count, 0);
  return {
    name: 'one agent.run.* fact per status',
    expected: `${expected} facts, each once`,
    found: `${missing} missing, ${duplicated} duplicated, ${wrongKey} other key, ${unexpected} unexpected${examples.length ? ` (e.g. ${examples.slice(0, 2).join('; ')})` : ''}`,
    pass: missing === 0 && duplicated === 0 && wrongKey === 0 && unexpected === 0,
  };
}

/**
 * `runner_lost` only for runs executing when a runner was killed: started at
 * most START_AFTER_KILL_TOLERANCE_MS after a runner kill and ended after it.
 * The run rows do not say which runner ran a run, so a kill of either runner
 * explains any lost run that spans it.
 */
export function checkRunnerLost(runs: readonly RunRow[], runnerKills: readonly number[]): CheckResult {
  const lost = runs.filter((run) => run.reason === RUN_FAILURE_CODES.runnerLost);
  const unexplained = lost.filter(
    (run) => run.startedAt === null || !runnerKills.some((t) => run.startedAt! <= t + START_AFTER_KILL_TOLERANCE_MS && (run.endedAt ?? Number.POSITIVE_INFINITY) >= t),
  );
  return {
    name: 'runner_lost only across a runner kill',
    expected: `0 of ${lost.length} unexplained`,
    found: `${unexplained.length} unexplained${unexplained.length ? ` (e.g. ${unexplained.slice(0, 3).map((r) => r.id).join(', ')})` : ''}`,
    pass: unexplained.length === 0,
  };
}
