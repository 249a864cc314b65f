import type { RunOutcome, ToolCallCounts, ToolCallResult } from '@switchyard/contracts';
import type { ModelResponse } from '../model/model';
import type { ModelCost, PriceTable } from '../model/prices';
import type { ExecutionResult } from '../ports';

/** Longest summary kept (RunOutcomeSchema's bound). */
const MAX_SUMMARY = 10_000;

/** The run's roll-up as it goes: turns, tool calls by result, tokens, cost and the last thing said. */
export class RunTally {
  turns = 0;
  tokensIn = 0;
  tokensOut = 0;
  costUsd = 0;
  /** Whether a model call had no price (its cost is unknown, not 0). */
  unpriced = false;
  private readonly calls: ToolCallCounts = { ok: 0, refused: 0, failed: 0 };
  private summary = '';

  /** `free`: the model costs nothing by nature (the scripted provider), so it is never unpriced. @defaultValue false */
  constructor(
    private readonly modelName: string,
    private readonly prices: PriceTable,
    private readonly free = false,
  ) {}

  /** Counts one model call; returns what it cost. */
  turn(response: ModelResponse): ModelCost {
    this.turns += 1;
    this.tokensIn += response.usage.inputTokens;
    this.tokensOut += response.usage.outputTokens;
    const cost = this.free ? { usd: 0, priced: true } : this.prices.costUsd(this.modelName, response.usage);
    this.costUsd += cost.usd;
    if (!cost.priced) this.unpriced = true;
    return cost;
  }

  /** Tokens in and out so far (the `maxTokens` budget). */
  get tokens(): number {
    return this.tokensIn + this.tokensOut;
  }

  /** Every tool call counted so far. */
  get toolCalls(): number {
    return this.calls.ok + this.calls.refused + this.calls.failed;
  }

  /** The latest message of the model becomes the summary (the final answer, when the run completes). */
  said(message: string): void {
    this.summary = message;
  }

  /** Counts one tool call by how it ended. */
  calledTool(result: ToolCallResult): void {
    this.calls[result] += 1;
  }

  outcome(): RunOutcome {
    return {
      summary: this.summary.slice(0, MAX_SUMMARY),
      turns: this.turns,
      toolCalls: this.toolCalls,
      toolCallsByResult: { ...this.calls },
      tokensIn: this.tokensIn,
      tokensOut: this.tokensOut,
      // Sums of float prices: six decimals is what the spend table keeps.
      costUsd: Math.round(this.costUsd * 1e6) / 1e6,
      ...(this.unpriced ? { unpriced: true as const } : {}),
    };
  }

  failed(code: string, message: string): ExecutionResult {
    return { status: 'failed', error: { code, message }, outcome: this.outcome() };
  }
}
