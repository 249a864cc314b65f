import type { AgentSpec, RunStateTally } from '@switchyard/contracts';
import type { SpendStanding } from './loop-ports';

/** No spend recorded yet: an unpriced model's run, which never reads the ledger. */
export const NO_SPEND: SpendStanding = { dayUsd: 0, runs: [] };

/**
 * Why the budget stops the run now, or undefined while it holds. Before a
 * model call a cap that is `reached` stops the run (the call would go over);
 * after one, only a cap `exceeded` does (spending exactly the cap is within it).
 * The token cap counts input and output tokens, so it holds for unpriced models.
 * One rule for perRunUsd (decision 0032): every run whose spend includes this
 * run's — itself, with the runs it delegated, and each run it was delegated
 * from — stays within its own perRunUsd; a delegated run cannot spend what its
 * parent was not given.
 */
export function overBudget(budget: AgentSpec['budget'], tally: RunStateTally, spend: SpendStanding, when: 'reached' | 'exceeded'): string | undefined {
  const over = (spent: number, cap: number) => (when === 'reached' ? spent >= cap : spent > cap);
  const tokens = tally.tokensIn + tally.tokensOut;
  if (budget.maxTokens !== undefined && over(tokens, budget.maxTokens)) return `the run used ${tokens} tokens; its maxTokens cap is ${budget.maxTokens}`;
  if (over(tally.costUsd, budget.perRunUsd)) return `the run spent ${tally.costUsd.toFixed(6)} USD; its perRunUsd cap is ${budget.perRunUsd}`;
  const [own, ...parents] = spend.runs;
  if (own && over(own.spentUsd, budget.perRunUsd)) return `the run and the runs it delegated spent ${own.spentUsd.toFixed(6)} USD; its perRunUsd cap is ${budget.perRunUsd}`;
  for (const parent of parents) {
    if (parent.capUsd !== null && over(parent.spentUsd, parent.capUsd)) {
      return `run ${parent.runId}, which this run was delegated from, spent ${parent.spentUsd.toFixed(6)} USD with its delegated runs; its perRunUsd cap is ${parent.capUsd}`;
    }
  }
  if (over(spend.dayUsd, budget.perDayUsd)) return `the agent spent ${spend.dayUsd.toFixed(6)} USD today (UTC); its perDayUsd cap is ${budget.perDayUsd}`;
  return undefined;
}
