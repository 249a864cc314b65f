import type { EvalCase, EvalDiff, EvalJudgeVerdict, EvalResult, EvalTrialResult } from '@switchyard/contracts';
import { failedExpectations, type TrialOutcome } from './expectations';
import { compareVersions } from './significance';

/** One ended trial: where it sits in the eval, and what its run did. */
export interface EndedTrial {
  runId: string;
  caseIndex: number;
  target: number;
  trial: number;
  durationMs: number;
  outcome: TrialOutcome;
  /** The judge's verdict, for a case with a judge. */
  verdict?: EvalJudgeVerdict | null;
}

/** A lone version passes a case when a majority of its trials pass. */
const LONE_PASS_RATE = 0.5;

const rate = (trials: readonly EvalTrialResult[]) => (trials.length === 0 ? 0 : trials.filter((t) => t.passed).length / trials.length);

/**
 * An eval's result once every trial ended: each trial checked against its
 * case's expectations, pass rates per case and target, and with two targets
 * the diff of B against A (Fisher exact per case, BH across cases). The
 * candidate — B, or the only target — passes when no case got worse than A;
 * alone, when every case passes a majority of its trials.
 */
export function settleEval(cases: readonly EvalCase[], targetCount: number, ended: readonly EndedTrial[]): EvalResult {
  const results = cases.map((c, caseIndex) => {
    const trials = ended
      .filter((t) => t.caseIndex === caseIndex)
      .sort((x, y) => x.target - y.target || x.trial - y.trial)
      .map((t): EvalTrialResult => {
        const failures = failedExpectations(c.expect, t.outcome);
        const judge = c.judge ? (t.verdict ?? { passed: false, reason: 'judge_failed: no verdict', tokens: 0, costUsd: 0 }) : undefined;
        if (judge && !judge.passed) failures.push(`judge: ${judge.reason}`);
        return {
          runId: t.runId,
          target: t.target,
          trial: t.trial,
          status: t.outcome.status,
          passed: failures.length === 0,
          failures,
          ...(judge ? { judge } : {}),
          tokens: t.outcome.tokens,
          costUsd: t.outcome.costUsd,
          durationMs: t.durationMs,
        };
      });
    const passRates = Array.from({ length: targetCount }, (_, target) => rate(trials.filter((t) => t.target === target)));
    return { caseIndex, passRates, trials };
  });
  const diff = targetCount === 2 ? diffOf(results) : null;
  const failingCases = diff
    ? diff.cases.filter((c) => c.direction === 'worse').map((c) => c.caseIndex)
    : results.filter((r) => r.passRates[0]! <= LONE_PASS_RATE).map((r) => r.caseIndex);
  const all = results.flatMap((r) => r.trials);
  const judgeCostUsd = all.reduce((sum, t) => sum + (t.judge?.costUsd ?? 0), 0);
  return {
    cases: results,
    diff,
    passed: failingCases.length === 0,
    failingCases,
    tokens: all.reduce((sum, t) => sum + t.tokens, 0),
    costUsd: all.reduce((sum, t) => sum + t.costUsd, 0) + judgeCostUsd,
    judgeCostUsd,
  };
}

function diffOf(results: readonly { caseIndex: number; trials: EvalTrialResult[] }[]): EvalDiff {
  const passes = (trials: EvalTrialResult[], target: number) => trials.filter((t) => t.target === target).map((t) => t.passed);
  const compared = compareVersions(results.map((r) => ({ caseId: String(r.caseIndex), a: passes(r.trials, 0), b: passes(r.trials, 1) })));
  return {
    verdict: compared.verdict,
    noiseFloor: compared.noiseFloor,
    drivers: compared.drivers.map(Number),
    cases: compared.cases.map(({ caseId, ...rest }) => ({ caseIndex: Number(caseId), ...rest })),
  };
}
