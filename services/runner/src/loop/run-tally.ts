import type { RunOutcome } from '@switchyard/contracts';
import type { ModelResponse } from '../model/model';
import type { ModelCost, PriceTable } from '../model/prices';
import type { ExecutionResult } from '../ports';

/** Longest summary kept (RunOutcomeSchema's bound). */
const MAX_SUMMARY = 10_000;

/** The run's roll-up as it goes: turns, tool calls, tokens, cost and the last thing said. */
export class RunTally {
  turns = 0;
  toolCalls = 0;
  tokensIn = 0;
  tokensOut = 0;
  costUsd = 0;
  private summary = '';

  constructor(
    private readonly modelName: string,
    private readonly prices: PriceTable,
  ) {}

  /** Counts one model call; returns what it cost. */
  turn(response: ModelResponse): ModelCost {
    this.turns += 1;
    this.tokensIn += response.usage.inputTokens;
    this.tokensOut += response.usage.outputTokens;
    const cost = this.prices.costUsd(this.modelName, response.usage);
    this.costUsd += cost.usd;
    return cost;
  }

  /** The latest message of the model becomes the summary (the final answer, when the run completes). */
  said(message: string): void {
    this.summary = message;
  }

  calledTools(count: number): void {
    this.toolCalls += count;
  }

  outcome(): RunOutcome {
    return {
      summary: this.summary.slice(0, MAX_SUMMARY),
      turns: this.turns,
      toolCalls: this.toolCalls,
      tokensIn: this.tokensIn,
      tokensOut: this.tokensOut,
      // Sums of float prices: six decimals is what the spend table keeps.
      costUsd: Math.round(this.costUsd * 1e6) / 1e6,
    };
  }

  failed(code: string, message: string): ExecutionResult {
    return { status: 'failed', error: { code, message }, outcome: this.outcome() };
  }
}
