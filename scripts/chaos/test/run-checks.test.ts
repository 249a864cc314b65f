import type { RunRow } from '../rows';
import { checkConcurrency, checkOneRunPerMatch, checkRunFacts, checkRunnerLost, checkSettled, checkSomeDropped, executionEnd, factKeysOf, statusesOf, type RunFact } from '../run-checks';

/** The run checks of the chaos harness on hand-made rows: each passes on a sound state and fails on its violation. */
let next = 0;
const run = (fields: Partial<RunRow>): RunRow => ({ id: `r${next++}`, agentId: 'a', eventId: `f${next}`, originType: 'trigger', status: 'completed', reason: null, startedAt: 1000, endedAt: 1100, ...fields });
const factsOf = (r: RunRow): RunFact[] => factKeysOf(r).map(({ kind, key }) => ({ subjectId: r.id, kind, idempotencyKey: key }));

describe('run checks', () => {
  it('one run per matching pair: fails on a missing run, a second run and a run for a pair not expected', () => {
    const runs = [run({ agentId: 'a', eventId: 'f1' }), run({ agentId: 'b', eventId: 'f1', status: 'dropped', startedAt: null, endedAt: null })];
    const expected = new Map([['a', new Set(['f1'])], ['b', new Set(['f1'])]]);
    expect(checkOneRunPerMatch(expected, runs).pass).toBe(true);
    expect(checkOneRunPerMatch(expected, runs.slice(0, 1), new Map([['b', 'capped']]))).toMatchObject({ pass: false, found: '1 with 1; 1 missing (capped 1), 0 duplicated, 0 unexpected' });
    expect(checkOneRunPerMatch(expected, [...runs, run({ agentId: 'a', eventId: 'f1' })]).pass).toBe(false);
    expect(checkOneRunPerMatch(expected, [...runs, run({ agentId: 'a', eventId: 'f2' })]).pass).toBe(false);
    // A manual run is no trigger run: it is not counted against the pairs.
    expect(checkOneRunPerMatch(expected, [...runs, run({ originType: 'manual', eventId: null })]).pass).toBe(true);
  });

  it('queue cap: fails when no run was dropped', () => {
    expect(checkSomeDropped('capped', [run({}), run({ status: 'dropped', startedAt: null })]).pass).toBe(true);
    expect(checkSomeDropped('capped', [run({}), run({})]).pass).toBe(false);
  });

  it('settled: fails on a run left queued, running or awaiting approval', () => {
    expect(checkSettled([run({}), run({ status: 'failed' })]).pass).toBe(true);
    for (const status of ['queued', 'running', 'awaiting_approval']) expect(checkSettled([run({}), run({ status })]).pass).toBe(false);
  });

  it('concurrency 1: passes on back-to-back runs (a hand-off ends one as the next starts), fails on an overlap', () => {
    const serial = [run({ startedAt: 0, endedAt: 100 }), run({ startedAt: 100, endedAt: 200 }), run({ status: 'dropped', startedAt: null, endedAt: 5 })];
    expect(checkConcurrency('serial', 1, serial, []).pass).toBe(true);
    expect(checkConcurrency('serial', 1, [...serial, run({ startedAt: 150, endedAt: 160 })], [])).toMatchObject({ pass: false, found: '2' });
  });

  it('concurrency 3: fails when a fourth run executes at once', () => {
    const three = [0, 10, 20].map((t) => run({ startedAt: t, endedAt: t + 100 }));
    expect(checkConcurrency('triple', 3, three, []).pass).toBe(true);
    expect(checkConcurrency('triple', 3, [...three, run({ startedAt: 50, endedAt: 60 })], []).pass).toBe(false);
  });

  it('a runner_lost run stopped executing when its runner was killed, not when its ending was written', () => {
    const lost = run({ reason: 'runner_lost', status: 'failed', startedAt: 0, endedAt: 5000 });
    expect(executionEnd(lost, [40])).toBe(40);
    expect(executionEnd(lost, [])).toBe(5000);
    // The next run started once the lost one's slot lapsed, before the lost one was marked failed.
    expect(checkConcurrency('serial', 1, [lost, run({ startedAt: 4000, endedAt: 4100 })], [40]).pass).toBe(true);
    expect(checkConcurrency('serial', 1, [lost, run({ startedAt: 30, endedAt: 4100 })], [40]).pass).toBe(false);
  });

  it('run facts: fails on a status without its fact, a fact twice, another key, and a fact of a status never reached', () => {
    const runs = [run({}), run({ status: 'dropped', startedAt: null, endedAt: null }), run({ status: 'cancelled', startedAt: null })];
    const facts = runs.flatMap(factsOf);
    expect(statusesOf(runs[0]!)).toEqual(['queued', 'running', 'completed']);
    expect(checkRunFacts(runs, facts).pass).toBe(true);
    expect(checkRunFacts(runs, facts.filter((f) => f.kind !== 'agent.run.started')).pass).toBe(false);
    expect(checkRunFacts(runs, [...facts, { ...facts[0]!, idempotencyKey: 'other' }]).pass).toBe(false);
    expect(checkRunFacts(runs, facts.map((f, i) => (i === 0 ? { ...f, idempotencyKey: 'other' } : f))).pass).toBe(false);
    expect(checkRunFacts(runs, [...facts, { subjectId: runs[2]!.id, kind: 'agent.run.started', idempotencyKey: `run:${runs[2]!.id}:running` }]).pass).toBe(false);
  });

  it('a run continued after its runner was killed has its second queued and started facts, keyed by its resumes', () => {
    const continued = run({ resumes: 1 });
    expect(factKeysOf(continued).map((fact) => fact.key)).toEqual([
      `run:${continued.id}:queued`,
      `run:${continued.id}:running`,
      `run:${continued.id}:queued:1`,
      `run:${continued.id}:running:1`,
      `run:${continued.id}:completed:1`,
    ]);
    const facts = factsOf(continued);
    expect(checkRunFacts([continued], facts).pass).toBe(true);
    expect(checkRunFacts([continued], facts.slice(0, -1)).pass).toBe(false);
    expect(checkRunFacts([continued], [...facts, facts[3]!]).pass).toBe(false);
  });

  it('runner_lost: passes for a run spanning a runner kill, fails for one that does not', () => {
    const lost = run({ reason: 'runner_lost', status: 'failed', startedAt: 1000, endedAt: 6000 });
    expect(checkRunnerLost([lost, run({})], [2000]).pass).toBe(true);
    expect(checkRunnerLost([lost], []).pass).toBe(false);
    expect(checkRunnerLost([lost], [7000]).pass).toBe(false);
    expect(checkRunnerLost([lost], [-500]).pass).toBe(false);
  });
});
