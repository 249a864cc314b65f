import { isDeepStrictEqual } from 'node:util';
import type { EvalExpect } from '@switchyard/contracts';

/** A tool call a trial made or would have made, as its transcript records it. */
export interface TrialCall {
  tool: string;
  arguments: unknown;
  /** Captured (not executed), as every write in a shadow run is. */
  wouldHave: boolean;
}

/** What the checks read of one trial's run. */
export interface TrialOutcome {
  status: string;
  summary: string | null;
  tokens: number;
  costUsd: number;
  calls: readonly TrialCall[];
}

/** The value at a dot path (`subject.id`, `items.0.name`) of a JSON value; undefined when absent. */
export function valueAtPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const argsMatch = (call: TrialCall, args: Record<string, unknown> | undefined) =>
  args === undefined || Object.entries(args).every(([path, expected]) => isDeepStrictEqual(valueAtPath(call.arguments, path), expected));

/**
 * The expectations a trial fails, each as a short reason; empty: it passes.
 * `wouldCall` looks at captured calls only (what a shadow run would have
 * written); `wouldNotCall` at every call, captured or live.
 */
export function failedExpectations(expect: EvalExpect, trial: TrialOutcome): string[] {
  const failures: string[] = [];
  for (const wanted of expect.wouldCall ?? []) {
    const found = trial.calls.some((call) => call.wouldHave && call.tool === wanted.tool && argsMatch(call, wanted.args));
    if (!found) failures.push(`wouldCall ${wanted.tool}${wanted.args ? ' with the arguments given' : ''}: not called`);
  }
  for (const tool of expect.wouldNotCall ?? []) {
    if (trial.calls.some((call) => call.tool === tool)) failures.push(`wouldNotCall ${tool}: called`);
  }
  if (expect.status !== undefined && trial.status !== expect.status) failures.push(`status: ${trial.status}, expected ${expect.status}`);
  if (expect.summaryIncludes !== undefined && !(trial.summary ?? '').includes(expect.summaryIncludes)) {
    failures.push(`summaryIncludes: "${expect.summaryIncludes}" not in the summary`);
  }
  if (expect.maxTokens !== undefined && trial.tokens > expect.maxTokens) failures.push(`maxTokens: used ${trial.tokens}`);
  if (expect.maxCostUsd !== undefined && trial.costUsd > expect.maxCostUsd) failures.push(`maxCostUsd: spent ${trial.costUsd}`);
  return failures;
}
