import type { AgentSpec, RunOutcome, RunStateTally } from '@switchyard/contracts';
import type { ModelUsage } from '../model/model';
import type { ModelCost, PriceTable } from '../model/prices';
import type { ExecutionResult } from '../ports';

/** Longest summary kept (RunOutcomeSchema's bound). */
const MAX_SUMMARY = 10_000;

/** What one model call cost; the scripted provider is free by nature, so never unpriced. */
export function costOf(prices: PriceTable, model: AgentSpec['model'], usage: ModelUsage): ModelCost {
  return model.provider === 'scripted' ? { usd: 0, priced: true } : prices.costUsd(model.name, usage);
}

/** The run's outcome from its tally. */
export function outcomeOf(tally: RunStateTally): RunOutcome {
  const { ok, refused, failed } = tally.toolCalls;
  return {
    summary: tally.summary.slice(0, MAX_SUMMARY),
    turns: tally.turns,
    toolCalls: ok + refused + failed,
    toolCallsByResult: { ok, refused, failed },
    tokensIn: tally.tokensIn,
    tokensOut: tally.tokensOut,
    // Sums of float prices: six decimals is what the spend table keeps.
    costUsd: Math.round(tally.costUsd * 1e6) / 1e6,
    ...(tally.unpriced ? { unpriced: true as const } : {}),
    ...(tally.tokensCached ? { cachedTokensIn: tally.tokensCached } : {}),
    ...(tally.compactions ? { compaction: { ...tally.compactions } } : {}),
    ...(tally.awareness ? { awareness: { digests: tally.awareness.digests, notes: tally.awareness.notes, addedTokens: tally.awareness.addedTokens } } : {}),
  };
}

/** A failed run's result, with the outcome so far. */
export function failedResult(tally: RunStateTally, code: string, message: string): ExecutionResult {
  return { status: 'failed', error: { code, message }, outcome: outcomeOf(tally) };
}
