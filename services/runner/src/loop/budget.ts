import type { AgentSpec, RunStateTally } from '@switchyard/contracts';

/**
 * Why the budget stops the run now, or undefined while it holds. Before a
 * model call a cap that is `reached` stops the run (the call would go over);
 * after one, only a cap `exceeded` does (spending exactly the cap is within it).
 * The token cap counts input and output tokens, so it holds for unpriced models.
 */
export function overBudget(budget: AgentSpec['budget'], tally: RunStateTally, dayUsd: number, when: 'reached' | 'exceeded'): string | undefined {
  const over = (spent: number, cap: number) => (when === 'reached' ? spent >= cap : spent > cap);
  const tokens = tally.tokensIn + tally.tokensOut;
  if (budget.maxTokens !== undefined && over(tokens, budget.maxTokens)) return `the run used ${tokens} tokens; its maxTokens cap is ${budget.maxTokens}`;
  if (over(tally.costUsd, budget.perRunUsd)) return `the run spent ${tally.costUsd.toFixed(6)} USD; its perRunUsd cap is ${budget.perRunUsd}`;
  if (over(dayUsd, budget.perDayUsd)) return `the agent spent ${dayUsd.toFixed(6)} USD today (UTC); its perDayUsd cap is ${budget.perDayUsd}`;
  return undefined;
}
