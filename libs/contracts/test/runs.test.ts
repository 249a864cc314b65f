import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AgentSpecSchema, ListRunsQuerySchema, RunOriginSchema, RunOutcomeSchema } from '../src/index';

/** Why this exists: a run's outcome and origin are persisted JSON columns, so every stored shape must keep parsing. */
const stored = (thing: string) => {
  const folder = path.join(__dirname, 'fixtures', thing, 'historical');
  return readdirSync(folder).map((file) => [file, JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as unknown] as const);
};

describe('run contracts (issue 13 fields are optional)', () => {
  it.each(stored('run-outcome'))('parses the stored outcome %s unchanged', (_file, outcome) => {
    expect(RunOutcomeSchema.parse(outcome)).toEqual(outcome);
  });

  it.each(stored('run-origin'))('parses the stored origin %s unchanged', (_file, origin) => {
    expect(RunOriginSchema.parse(origin)).toEqual(origin);
  });

  it('refuses an outcome whose counts are not whole, or that claims to be priced explicitly', () => {
    const base = { summary: '', turns: 1, toolCalls: 1, tokensIn: 0, tokensOut: 0, costUsd: 0 };
    expect(RunOutcomeSchema.safeParse({ ...base, toolCallsByResult: { ok: 1, refused: 0 } }).success).toBe(false);
    expect(RunOutcomeSchema.safeParse({ ...base, unpriced: false }).success).toBe(false);
  });

  it('a toolResult filter is one of ok, refused, failed', () => {
    expect(ListRunsQuerySchema.parse({ toolResult: 'refused' })).toMatchObject({ toolResult: 'refused' });
    expect(ListRunsQuerySchema.safeParse({ toolResult: 'maybe' }).success).toBe(false);
  });

  it('budget.maxTokens is optional and a positive whole number', () => {
    const spec = { name: 'a', instructions: 'x', model: { provider: 'openai', name: 'm' }, triggers: [{ kind: 'a.b' }] };
    expect(AgentSpecSchema.parse(spec).budget.maxTokens).toBeUndefined();
    expect(AgentSpecSchema.parse({ ...spec, budget: { maxTokens: 5000 } }).budget.maxTokens).toBe(5000);
    expect(AgentSpecSchema.safeParse({ ...spec, budget: { maxTokens: 0 } }).success).toBe(false);
  });
});
