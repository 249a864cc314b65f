import { AgentSpecSchema, TriggerSchema, type AgentSpec, type Fact, type Trigger } from '@switchyard/contracts';
import type { AgentRecord } from '../src/agent-index';

/**
 * Why this exists: the matcher's unit tests need many valid agent specs and
 * facts with only the fields under test varying. The base spec goes through
 * AgentSpecSchema once, so every default (flow, budget, …) is the one the
 * registry stores; triggers are parsed too, so a test cannot index a filter
 * the API would refuse.
 */
export const BASE_SPEC: AgentSpec = AgentSpecSchema.parse({
  name: 'fixture',
  instructions: 'Act on the fact.',
  model: { provider: 'openai', name: 'gpt-4.1-mini' },
  triggers: [{ kind: '**' }],
});

/** A spec with these triggers (validated) and optional overrides of other fields. */
export function specWith(triggers: unknown[], overrides: Partial<AgentSpec> = {}): AgentSpec {
  const parsed = TriggerSchema.array().parse(triggers);
  return { ...BASE_SPEC, ...overrides, triggers: parsed };
}

/**
 * An enabled agent record in workspace `ws-1`, version 1. `triggers` are
 * given unvalidated only when `trusted` (the 10,000-agent check skips zod to
 * stay fast; its triggers are plain globs).
 */
export function agentRecord(
  agentId: string,
  triggers: unknown[],
  fields: Partial<Omit<AgentRecord, 'agentId' | 'spec'>> = {},
  trusted = false,
): AgentRecord {
  const spec = trusted ? { ...BASE_SPEC, triggers: triggers as Trigger[] } : specWith(triggers);
  return { agentId, workspaceId: 'ws-1', version: 1, enabled: true, spec, ...fields };
}

/** A stored fact of `kind` with this payload; other fields fixed. */
export function factOf(kind: string, payload: Fact['payload'] = {}, extra: Partial<Fact> = {}): Fact {
  return {
    id: '01900000-0000-7000-8000-000000000001',
    seq: 1,
    workspace: 'acme',
    kind,
    subject: { type: 'build', id: 'b-1' },
    payload,
    ts: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

export { pick, prng } from '@switchyard/testing';
