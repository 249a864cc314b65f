import type { EvalCase } from '../types';

/** A case as the suite editor holds it: the fact, and each expectation as the text a person types. */
export interface CaseDraft {
  factId?: string;
  fact?: NonNullable<EvalCase['fact']>;
  /** One call a line: `tool` or `tool {"dot.path": value}`. */
  wouldCall: string;
  /** One tool a line. */
  wouldNotCall: string;
  status: '' | 'completed' | 'failed' | 'cancelled';
  summaryIncludes: string;
  maxTokens: string;
  maxCostUsd: string;
  judgeModel: string;
  judgeRubric: string;
}

/** A new case on a recorded fact, expecting the run to complete. */
export function draftOfFact(factId: string): CaseDraft {
  return { factId, wouldCall: '', wouldNotCall: '', status: 'completed', summaryIncludes: '', maxTokens: '', maxCostUsd: '', judgeModel: '', judgeRubric: '' };
}

export function draftOfCase(c: EvalCase): CaseDraft {
  const e = c.expect;
  return {
    ...(c.factId !== undefined ? { factId: c.factId } : { fact: c.fact! }),
    wouldCall: (e.wouldCall ?? []).map((w) => (w.args ? `${w.tool} ${JSON.stringify(w.args)}` : w.tool)).join('\n'),
    wouldNotCall: (e.wouldNotCall ?? []).join('\n'),
    status: e.status ?? '',
    summaryIncludes: e.summaryIncludes ?? '',
    maxTokens: e.maxTokens === undefined ? '' : String(e.maxTokens),
    maxCostUsd: e.maxCostUsd === undefined ? '' : String(e.maxCostUsd),
    judgeModel: c.judge?.model ?? '',
    judgeRubric: c.judge?.rubric ?? '',
  };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The case the API takes; a line of `wouldCall` whose arguments are not JSON
 * throws (the editor shows it). Numbers are sent as typed: the API says what
 * is wrong with them (VALIDATION_FAILED at the case's path).
 */
export function caseOfDraft(d: CaseDraft, index: number): EvalCase {
  const wouldCall = lines(d.wouldCall).map((line) => {
    const space = line.indexOf(' ');
    if (space < 0) return { tool: line };
    try {
      return { tool: line.slice(0, space), args: JSON.parse(line.slice(space + 1)) as Record<string, unknown> };
    } catch {
      throw new Error(`case #${index}: the arguments of "${line.slice(0, space)}" are not JSON`);
    }
  });
  const wouldNotCall = lines(d.wouldNotCall);
  const expect: EvalCase['expect'] = {
    ...(wouldCall.length > 0 ? { wouldCall } : {}),
    ...(wouldNotCall.length > 0 ? { wouldNotCall } : {}),
    ...(d.status ? { status: d.status } : {}),
    ...(d.summaryIncludes ? { summaryIncludes: d.summaryIncludes } : {}),
    ...(d.maxTokens.trim() ? { maxTokens: Number(d.maxTokens) } : {}),
    ...(d.maxCostUsd.trim() ? { maxCostUsd: Number(d.maxCostUsd) } : {}),
  };
  const judge = d.judgeModel.trim() || d.judgeRubric.trim() ? { judge: { model: d.judgeModel.trim(), rubric: d.judgeRubric } } : {};
  return { ...(d.factId !== undefined ? { factId: d.factId } : { fact: d.fact! }), expect, ...judge };
}
