import { AgentBudgetSchema } from '@switchyard/contracts';
import { NO_SPEND, overBudget } from '../src/loop/budget';
import { emptyRunState } from '../src/loop/run-state';

/**
 * The one budget rule (decision 0032): a run stops when it, with the runs it
 * delegated, or any run it was delegated from, is over its own perRunUsd —
 * `reached` before a model call, `exceeded` after one.
 */
describe('overBudget', () => {
  const budget = AgentBudgetSchema.parse({ perRunUsd: 1, perDayUsd: 10 });
  const tally = (costUsd: number) => ({ ...emptyRunState('00000000-0000-4000-8000-000000000000').tally, costUsd });
  const standing = (own: number, ...parents: Array<[number, number | null]>) => ({
    dayUsd: 0,
    runs: [{ runId: 'self', spentUsd: own, capUsd: 1 }, ...parents.map(([spentUsd, capUsd], i) => ({ runId: `parent-${i}`, spentUsd, capUsd }))],
  });

  it('holds within every cap of the chain, and with no standing read (an unpriced model)', () => {
    expect(overBudget(budget, tally(0.5), standing(0.5, [0.9, 1], [3, 5]), 'reached')).toBeUndefined();
    expect(overBudget(budget, tally(0.5), NO_SPEND, 'reached')).toBeUndefined();
  });

  it("a parent's cap: reached stops before a call, exceeded after; a parent with no known cap limits nothing", () => {
    expect(overBudget(budget, tally(0.1), standing(0.1, [1, 1]), 'reached')).toMatch(/^run parent-0, which this run was delegated from, spent 1\.000000 USD/);
    expect(overBudget(budget, tally(0.1), standing(0.1, [1, 1]), 'exceeded')).toBeUndefined();
    expect(overBudget(budget, tally(0.1), standing(0.1, [0.5, 5], [2.5, 2]), 'exceeded')).toMatch(/^run parent-1/);
    expect(overBudget(budget, tally(0.1), standing(0.1, [100, null]), 'exceeded')).toBeUndefined();
  });

  it("the run's own cap counts the runs it delegated", () => {
    expect(overBudget(budget, tally(0.2), standing(1.2), 'exceeded')).toMatch(/^the run and the runs it delegated spent 1\.200000 USD; its perRunUsd cap is 1/);
    expect(overBudget(budget, tally(1.2), standing(1.2), 'exceeded')).toMatch(/^the run spent 1\.200000 USD/);
  });

  it('the day cap stays the agent’s', () => {
    expect(overBudget(budget, tally(0), { ...standing(0), dayUsd: 10 }, 'reached')).toMatch(/perDayUsd cap is 10/);
  });
});
