import { AppError, CraftMessageRequestSchema, type CraftEvent } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logging';
import type { Principal } from '../src/auth-ports';
import { CraftAgent, type CraftAgentDeps } from '../src/commands/craft-agent';
import { CraftModelError, type CraftModel } from '../src/craft-ports';

const person: Principal = { tokenId: 't', userId: 'u', workspaceId: 'w', workspaceSlug: 'acme', role: 'member' };
const body = CraftMessageRequestSchema.parse({
  message: 'hi',
  draft: { name: 'd', instructions: 'Do.', model: { provider: 'openai', name: 'm' }, triggers: [{ kind: 'a.b' }] },
});

/** A CraftAgent over in-memory ports: the model is the one given, nothing is stored anywhere. */
function craftAgent(model: CraftModel | null): CraftAgent {
  const deps: CraftAgentDeps = {
    model,
    tryAgent: { try: () => Promise.reject(new Error('no tries here')) },
    agents: { get: () => Promise.resolve(null) },
    tries: { hasTries: () => Promise.resolve(false) },
    reader: { listBefore: () => Promise.resolve([]) },
    log: createLogger({ service: 'test', level: 'silent' }),
  };
  return new CraftAgent(deps);
}

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'none', (error: unknown) => (error instanceof AppError ? error.code : String(error)));

describe('CraftAgent (decision 0056)', () => {
  it('refuses every message when no crafting model is configured, and an agent token', async () => {
    expect(await codeOf(craftAgent(null).check(person, body))).toBe('CRAFTING_NOT_CONFIGURED');
    const agent: Principal = { ...person, agent: { runId: 'r', agentId: 'a', depth: 0 } };
    expect(await codeOf(craftAgent({ complete: () => Promise.reject(new Error('unused')) }).check(agent, body))).toBe('TRY_BY_AGENT_REFUSED');
  });

  it('ends with an error event when the model fails, and tells the model of an unknown tool and a try with nothing to replay', async () => {
    const events: CraftEvent[] = [];
    await craftAgent({ complete: () => Promise.reject(new CraftModelError('model_http_503', 'the model endpoint answered 503')) }).message({ principal: person, correlationId: 'c' }, body, (e) => events.push(e), new AbortController().signal);
    expect(events).toEqual([{ type: 'error', code: 'model_http_503', message: 'the model endpoint answered 503' }]);

    const told: string[] = [];
    let calls = 0;
    const model: CraftModel = {
      complete: ({ messages }) => {
        calls++;
        if (calls === 1) return Promise.resolve({ message: null, toolCalls: [{ id: '1', name: 'delete_everything', arguments: '{}' }, { id: '2', name: 'try_agent_draft', arguments: '{}' }] });
        told.push(...messages.filter((m) => m.role === 'tool').map((m) => (m as { content: string }).content));
        return Promise.resolve({ message: 'ok', toolCalls: [] });
      },
    };
    const answered: CraftEvent[] = [];
    await craftAgent(model).message({ principal: person, correlationId: 'c' }, body, (e) => answered.push(e), new AbortController().signal);
    expect(told.map((text) => JSON.parse(text).code)).toEqual(['TOOL_UNKNOWN', 'NO_FACT_TO_REPLAY']);
    expect(answered.map((e) => e.type)).toEqual(['try_refused', 'say', 'done']);
  });
});
