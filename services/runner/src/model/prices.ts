import { z } from 'zod';
import { matchesStarGlob } from '@switchyard/core';
import type { ModelUsage } from './model';

/** A model's price in USD per 1M tokens. */
export const ModelPriceSchema = z.strictObject({
  /** USD per 1M input (prompt) tokens. */
  input: z.number().min(0).max(100_000),
  /** USD per 1M output (completion) tokens. */
  output: z.number().min(0).max(100_000),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * A price table: model name or glob (`*` is any run of characters, e.g.
 * `gpt-4.1*`) → price. The `MODEL_PRICES` variable holds one as JSON, e.g.
 * `{"gpt-4.1*": {"input": 2, "output": 8}, "my-local-model": {"input": 0, "output": 0}}`.
 */
export const ModelPricesSchema = z
  .record(z.string().min(1).max(200).regex(/^[A-Za-z0-9._:/*-]+$/, 'model names and globs are letters, digits, . _ : / - and *'), ModelPriceSchema)
  .refine((prices) => Object.keys(prices).length <= 1_000, { message: 'at most 1000 prices' });
export type ModelPrices = z.infer<typeof ModelPricesSchema>;

/**
 * Default prices (USD per 1M tokens, OpenAI's list prices for standard
 * processing as of mid-2025). They are defaults to be overridden: providers
 * change prices, and compatible servers (local models, proxies) price
 * differently. Cached input tokens are priced as ordinary input here (they
 * are a subset of the input count), so costs may be slightly high.
 */
export const DEFAULT_MODEL_PRICES: Readonly<ModelPrices> = {
  'gpt-5*': { input: 1.25, output: 10 },
  'gpt-5-mini*': { input: 0.25, output: 2 },
  'gpt-5-nano*': { input: 0.05, output: 0.4 },
  'gpt-4.1*': { input: 2, output: 8 },
  'gpt-4.1-mini*': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano*': { input: 0.1, output: 0.4 },
  'gpt-4o*': { input: 2.5, output: 10 },
  'gpt-4o-mini*': { input: 0.15, output: 0.6 },
  'o3*': { input: 2, output: 8 },
  'o3-mini*': { input: 1.1, output: 4.4 },
  'o4-mini*': { input: 1.1, output: 4.4 },
};

/** The cost of one call; `priced: false` means the model is in no table entry and the cost is 0. */
export interface ModelCost {
  usd: number;
  priced: boolean;
}

/**
 * Looks up prices by model name: an exact entry first, else the most specific
 * matching glob (the most literal characters; on a tie, the first listed).
 */
export class PriceTable {
  private readonly exact = new Map<string, ModelPrice>();
  private readonly globs: Array<{ glob: string; literalChars: number; price: ModelPrice }> = [];

  constructor(prices: Readonly<ModelPrices>) {
    for (const [pattern, price] of Object.entries(prices)) {
      if (!pattern.includes('*')) this.exact.set(pattern, price);
      else this.globs.push({ glob: pattern, literalChars: pattern.replaceAll('*', '').length, price });
    }
    // Stable sort: equally specific globs keep their listed order.
    this.globs.sort((a, b) => b.literalChars - a.literalChars);
  }

  /** The price of `model`, or undefined when no entry matches. */
  priceOf(model: string): ModelPrice | undefined {
    return this.exact.get(model) ?? this.globs.find((entry) => matchesStarGlob(entry.glob, model))?.price;
  }

  /** What `usage` cost on `model`, in USD; 0 and `priced: false` for a model without a price. */
  costUsd(model: string, usage: ModelUsage): ModelCost {
    const price = this.priceOf(model);
    if (!price) return { usd: 0, priced: false };
    // One division at the end keeps round figures round (1000 × 2 + 500 × 8 → 0.006).
    return { usd: (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000, priced: true };
  }
}

/**
 * The runner's price table: `overrides` (MODEL_PRICES, parsed) over
 * DEFAULT_MODEL_PRICES. An override replaces the default entry of the same
 * key; other defaults stay (set a default's key to override it).
 */
export function createPriceTable(overrides: Readonly<ModelPrices> = {}): PriceTable {
  return new PriceTable({ ...DEFAULT_MODEL_PRICES, ...overrides });
}
