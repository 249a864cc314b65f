import { ModelEnvSchema } from '../src/model/model-config';
import { matchesStarGlob as matchesGlob } from '@switchyard/core';
import { createPriceTable, DEFAULT_MODEL_PRICES, PriceTable } from '../src/model/prices';

describe('model prices', () => {
  it('prices usage in USD per 1M tokens', () => {
    const table = new PriceTable({ 'gpt-test': { input: 2, output: 8 } });
    expect(table.costUsd('gpt-test', { inputTokens: 1_000, outputTokens: 500 })).toEqual({ usd: 0.006, priced: true });
    expect(table.costUsd('gpt-test', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toEqual({ usd: 10, priced: true });
    expect(table.costUsd('gpt-test', { inputTokens: 0, outputTokens: 0 })).toEqual({ usd: 0, priced: true });
  });

  it('reports an unknown model as unpriced, costing 0', () => {
    expect(createPriceTable().costUsd('llama-local', { inputTokens: 5_000, outputTokens: 5_000 })).toEqual({ usd: 0, priced: false });
  });

  it('prefers an exact entry, then the most specific glob', () => {
    const table = new PriceTable({
      'gpt-4.1*': { input: 2, output: 8 },
      'gpt-4.1-mini*': { input: 0.4, output: 1.6 },
      'gpt-4.1-mini-special': { input: 9, output: 9 },
      '*': { input: 100, output: 100 },
    });
    expect(table.priceOf('gpt-4.1')).toEqual({ input: 2, output: 8 });
    expect(table.priceOf('gpt-4.1-2025-04-14')).toEqual({ input: 2, output: 8 });
    expect(table.priceOf('gpt-4.1-mini-2025-04-14')).toEqual({ input: 0.4, output: 1.6 });
    expect(table.priceOf('gpt-4.1-mini-special')).toEqual({ input: 9, output: 9 });
    expect(table.priceOf('anything')).toEqual({ input: 100, output: 100 });
  });

  it('has defaults for common OpenAI models', () => {
    const table = createPriceTable();
    expect(table.priceOf('gpt-4.1-mini')).toEqual(DEFAULT_MODEL_PRICES['gpt-4.1-mini*']);
    expect(table.priceOf('gpt-4o-mini-2024-07-18')).toEqual(DEFAULT_MODEL_PRICES['gpt-4o-mini*']);
    expect(table.priceOf('o3-mini')).toEqual(DEFAULT_MODEL_PRICES['o3-mini*']);
    expect(table.priceOf('o3')).toEqual(DEFAULT_MODEL_PRICES['o3*']);
  });

  it('merges MODEL_PRICES over the defaults: same keys replaced, new keys added, others kept', () => {
    const env = ModelEnvSchema.parse({ MODEL_PRICES: JSON.stringify({ 'gpt-4.1*': { input: 1, output: 1 }, 'local-*': { input: 0, output: 0 } }) });
    const table = createPriceTable(env.MODEL_PRICES);
    expect(table.priceOf('gpt-4.1')).toEqual({ input: 1, output: 1 });
    expect(table.costUsd('local-llama', { inputTokens: 10, outputTokens: 10 })).toEqual({ usd: 0, priced: true });
    expect(table.priceOf('gpt-4o')).toEqual(DEFAULT_MODEL_PRICES['gpt-4o*']);
  });

  it('refuses a MODEL_PRICES that is not JSON or not a price table', () => {
    expect(ModelEnvSchema.safeParse({ MODEL_PRICES: '{nope' }).success).toBe(false);
    expect(ModelEnvSchema.safeParse({ MODEL_PRICES: '{"m": {"input": -1, "output": 1}}' }).success).toBe(false);
    expect(ModelEnvSchema.safeParse({ MODEL_PRICES: '{"m": {"input": 1}}' }).success).toBe(false);
    expect(ModelEnvSchema.safeParse({ MODEL_PRICES: '{"bad name!": {"input": 1, "output": 1}}' }).success).toBe(false);
  });

  it('fills the model env defaults', () => {
    expect(ModelEnvSchema.parse({ OPENAI_API_KEY: '' })).toEqual({
      OPENAI_BASE_URL: 'https://api.openai.com/v1',
      OPENAI_API_KEY: undefined,
      MODEL_TIMEOUT_MS: 60_000,
      MODEL_MAX_ATTEMPTS: 4,
      MODEL_STREAM: true,
      MODEL_RATE_LIMIT_WINDOW_MS: 60_000,
      MODEL_RATE_LIMIT_MARGIN_MS: 500,
      RUNNER_MODEL_ALLOW_PRIVATE: false,
      RUNNER_MODEL_ALLOWED_HOSTS: [],
    });
  });

  it('matches globs in bounded time', () => {
    expect(matchesGlob('a*b*c', 'aXXbYYc')).toBe(true);
    expect(matchesGlob('a*b*c', 'aXXbYY')).toBe(false);
    expect(matchesGlob('**', '')).toBe(true);
    expect(matchesGlob('gpt-4.1', 'gpt-4x1')).toBe(false);
    const started = Date.now();
    expect(matchesGlob(`${'a*'.repeat(60)}b`, 'a'.repeat(200))).toBe(false);
    expect(Date.now() - started).toBeLessThan(100);
  });
});
