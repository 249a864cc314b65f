/*
 * Whether version B passes a case more or less often than version A, beyond
 * the model's noise (issue 35 §3): a two-sided Fisher exact test per case, the
 * Benjamini–Hochberg false-discovery-rate correction across cases, and a noise
 * floor measured from trials of one version against themselves.
 */

/** ln(n!) for the small counts of eval trials, by summing logs once per n (memoized). */
const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let k = logFactorials.length; k <= n; k++) logFactorials.push(logFactorials[k - 1]! + Math.log(k));
  return logFactorials[n]!;
}

/** Probability of a 2×2 table with these margins having `a` in its top-left cell (hypergeometric). */
function tableProbability(a: number, row1: number, row2: number, col1: number): number {
  const n = row1 + row2;
  const b = row1 - a;
  const c = col1 - a;
  const d = row2 - c;
  return Math.exp(
    logFactorial(row1) + logFactorial(row2) + logFactorial(col1) + logFactorial(n - col1) - logFactorial(n) - logFactorial(a) - logFactorial(b) - logFactorial(c) - logFactorial(d),
  );
}

/**
 * Two-sided Fisher exact test of passes out of trials for A against B: the
 * probability, with the margins fixed, of a table at most as likely as the
 * one observed (the usual "sum of small p" definition, with a relative
 * tolerance so that ties in floating point count as ties).
 */
export function fisherExactTwoSided(passA: number, trialsA: number, passB: number, trialsB: number): number {
  const col1 = passA + passB;
  const observed = tableProbability(passA, trialsA, trialsB, col1);
  let p = 0;
  for (let a = Math.max(0, col1 - trialsB); a <= Math.min(trialsA, col1); a++) {
    const probability = tableProbability(a, trialsA, trialsB, col1);
    if (probability <= observed * (1 + 1e-7)) p += probability;
  }
  return Math.min(1, p);
}

/** Benjamini–Hochberg adjusted p-values (q-values), in the order given: monotone, at most 1. */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const q = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, i } = order[rank - 1]!;
    running = Math.min(running, (p * m) / rank);
    q[i] = running;
  }
  return q;
}

/** One case's trials: pass (true) or fail, in the order they ran, per version. */
export interface CaseTrials {
  caseId: string;
  a: readonly boolean[];
  b: readonly boolean[];
}

/** How a case compares, and whether it changed. */
export interface CaseDiff {
  caseId: string;
  passRateA: number;
  passRateB: number;
  pValue: number;
  qValue: number;
  /** Significant (q < alpha) and |B − A| at least the minimum difference and the noise floor. */
  changed: boolean;
  direction: 'better' | 'worse' | 'same';
}

/** The eval's verdict on B against A, with the cases that drove it. */
export interface VersionDiff {
  verdict: 'better' | 'worse' | 'no detectable difference';
  noiseFloor: number;
  cases: CaseDiff[];
  /** The changed cases, worse first. */
  drivers: string[];
}

const rate = (trials: readonly boolean[]) => (trials.length === 0 ? 0 : trials.filter(Boolean).length / trials.length);

/**
 * The noise floor: how far one version's pass rate on a case moves between
 * two halves of its own trials (first half against second), as the 90th
 * percentile over every case of both versions. A difference between versions
 * no larger than this is what the model's nondeterminism alone produces.
 */
export function noiseFloor(cases: readonly CaseTrials[]): number {
  const gaps: number[] = [];
  for (const trials of cases.flatMap((c) => [c.a, c.b])) {
    if (trials.length < 2) continue;
    const half = Math.floor(trials.length / 2);
    gaps.push(Math.abs(rate(trials.slice(0, half)) - rate(trials.slice(half))));
  }
  if (gaps.length === 0) return 0;
  gaps.sort((x, y) => x - y);
  return gaps[Math.min(gaps.length - 1, Math.ceil(gaps.length * 0.9) - 1)]!;
}

/**
 * Compares B with A case by case: Fisher exact per case, BH across cases,
 * and a case changes only when significant and above both the minimum
 * difference and the noise floor. Any case that got worse makes the verdict
 * `worse` (a regression is not averaged away by improvements elsewhere).
 */
export function compareVersions(cases: readonly CaseTrials[], options: { alpha?: number; minDifference?: number } = {}): VersionDiff {
  const alpha = options.alpha ?? 0.05;
  const minDifference = options.minDifference ?? 0.2;
  const floor = noiseFloor(cases);
  const pValues = cases.map((c) => fisherExactTwoSided(c.a.filter(Boolean).length, c.a.length, c.b.filter(Boolean).length, c.b.length));
  const qValues = benjaminiHochberg(pValues);
  const diffs = cases.map((c, i): CaseDiff => {
    const passRateA = rate(c.a);
    const passRateB = rate(c.b);
    const delta = passRateB - passRateA;
    const changed = qValues[i]! < alpha && Math.abs(delta) >= Math.max(minDifference, floor);
    return { caseId: c.caseId, passRateA, passRateB, pValue: pValues[i]!, qValue: qValues[i]!, changed, direction: !changed ? 'same' : delta > 0 ? 'better' : 'worse' };
  });
  const worse = diffs.filter((d) => d.direction === 'worse').map((d) => d.caseId);
  const better = diffs.filter((d) => d.direction === 'better').map((d) => d.caseId);
  return { verdict: worse.length > 0 ? 'worse' : better.length > 0 ? 'better' : 'no detectable difference', noiseFloor: floor, cases: diffs, drivers: [...worse, ...better] };
}
