import type { EvalCase } from '@switchyard/contracts';
import { settleEval, type EndedTrial } from '../src';

const outcome = (summary: string) => ({ status: 'completed', summary, tokens: 10, costUsd: 0.01, calls: [] });
const ended = (caseIndex: number, target: number, trial: number, summary: string, verdict?: EndedTrial['verdict']): EndedTrial => ({
  runId: `r-${caseIndex}-${target}-${trial}`,
  caseIndex,
  target,
  trial,
  durationMs: 5,
  outcome: outcome(summary),
  ...(verdict === undefined ? {} : { verdict }),
});

describe('settling an eval (issue 35 §2)', () => {
  it('passes a lone version whose cases pass a majority of their trials, and names the others', () => {
    const cases: EvalCase[] = [{ fact: { kind: 'a.b', subject: { type: 't', id: '1' }, payload: {} }, expect: { summaryIncludes: 'ok' } }, { fact: { kind: 'a.b', subject: { type: 't', id: '2' }, payload: {} }, expect: { summaryIncludes: 'ok' } }];
    const result = settleEval(cases, 1, [ended(0, 0, 0, 'ok'), ended(0, 0, 1, 'ok'), ended(0, 0, 2, 'no'), ended(1, 0, 0, 'ok'), ended(1, 0, 1, 'no'), ended(1, 0, 2, 'no')]);
    expect(result.diff).toBeNull();
    expect(result.cases.map((c) => c.passRates[0])).toEqual([2 / 3, 1 / 3]);
    expect(result).toMatchObject({ passed: false, failingCases: [1], tokens: 60, judgeCostUsd: 0 });
    expect(result.costUsd).toBeCloseTo(0.06, 10);
  });

  it('fails a trial its judge fails (or never answered), and adds the judge’s cost', () => {
    const cases: EvalCase[] = [{ fact: { kind: 'a.b', subject: { type: 't', id: '1' }, payload: {} }, expect: {}, judge: { model: 'j', rubric: 'be quiet' } }];
    const result = settleEval(cases, 1, [ended(0, 0, 0, 'x', { passed: true, reason: 'fine', tokens: 5, costUsd: 0.5 }), ended(0, 0, 1, 'x', { passed: false, reason: 'loud', tokens: 5, costUsd: 0.5 }), ended(0, 0, 2, 'x', null)]);
    expect(result.cases[0]!.trials.map((t) => [t.passed, t.failures])).toEqual([[true, []], [false, ['judge: loud']], [false, ['judge: judge_failed: no verdict']]]);
    expect(result.judgeCostUsd).toBe(1);
    expect(result.costUsd).toBeCloseTo(1.03, 10);
  });
});
