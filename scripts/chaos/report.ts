import type { CheckResult } from './rows';
import { textTable } from '../lib/text-table';

/** The figures worth recording for a run (BENCHMARKS.md takes the long run's). */
export interface ChaosFigures {
  rate: number;
  durationS: number;
  offered: number;
  acknowledged: number;
  /** Facts of the load stored, and every fact of the workspace (the platform's own included). */
  storedLoadFacts: number;
  storedFacts: number;
  /** Answers of the gateway by status, retries included (`error`: the connection failed). */
  answers: Record<string, number>;
  /** Answers to the manual runs started during the load, by status. */
  manualRuns: Record<string, number>;
  /** Runs by agent name, then by status. */
  runs: Record<string, Record<string, number>>;
  /** Kills done, as `target +seconds into the load (down for s)`. */
  kills: string[];
  loadElapsedS: number;
  quiescenceS: number | undefined;
}


/** The report: the figures, then one table of every check with expected, found and pass/fail. */
export function formatReport(figures: ChaosFigures, checks: readonly CheckResult[]): string {
  const runs = Object.entries(figures.runs).map(([agent, byStatus]) => `${agent} ${Object.entries(byStatus).map(([s, n]) => `${s}=${n}`).join(' ')}`);
  const lines = [
    `chaos: ${figures.rate} facts/s for ${figures.durationS} s (load took ${figures.loadElapsedS.toFixed(1)} s)`,
    `facts: offered ${figures.offered}, acknowledged ${figures.acknowledged}, stored ${figures.storedLoadFacts} of the load (${figures.storedFacts} in the workspace)`,
    `answers: ${Object.entries(figures.answers).sort().map(([status, n]) => `${status}=${n}`).join(' ')}`,
    `manual runs asked: ${Object.entries(figures.manualRuns).sort().map(([status, n]) => `${status}=${n}`).join(' ')}`,
    `runs: ${runs.join('; ')}`,
    `kills (${figures.kills.length}): ${figures.kills.join(', ') || 'none'}`,
    `quiescence: ${figures.quiescenceS === undefined ? 'not reached' : `${figures.quiescenceS.toFixed(1)} s after the load`}`,
    '',
    textTable([['check', 'expected', 'found', 'result'], ...checks.map((c) => [c.name, c.expected, c.found, c.pass ? 'pass' : 'FAIL'])]),
    '',
    checks.every((c) => c.pass) ? 'chaos: every check passed' : `chaos: ${checks.filter((c) => !c.pass).length} check(s) FAILED`,
  ];
  return lines.join('\n');
}
