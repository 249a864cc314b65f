import { AgentSpecSchema } from '@switchyard/contracts';
import { CraftToolHost, CRAFT_TRY_PLATFORM_TOOL, craftTurnInput, type CraftOrigin } from '../src/tools/craft-tool-host';
import type { ToolCallResult, ToolHost } from '../src/tools/tool-host';

const { enabled: _enabled, ...canvas } = AgentSpecSchema.parse({ name: 'draft', instructions: 'Do.', model: { provider: 'openai', name: 'm' }, triggers: [{ kind: 'a.b' }] });
const origin: CraftOrigin = { type: 'craft', userId: '0190a000-0000-7000-8000-0000000000a1', message: 'hi', canvas, agentId: '0190a000-0000-7000-8000-0000000000b1' };

/** The run's platform connection, answering `try_crafted_draft` with `answer` and keeping what it was sent. */
function platform(answer: ToolCallResult): ToolHost & { sent: Array<{ name: string; args: unknown }> } {
  const sent: Array<{ name: string; args: unknown }> = [];
  return { sent, tools: () => [], call: async (name, args) => (sent.push({ name, args }), answer), close: async () => undefined };
}
/** The lazy connection CraftToolHost is given: this host, no notices. */
const connectTo = (host: ToolHost) => () => Promise.resolve({ host, notices: [] });
const signal = new AbortController().signal;
const resultOf = (outcome: ToolCallResult) => (outcome.ok ? JSON.parse(outcome.content) : outcome.error);

describe('CraftToolHost (decision 0056)', () => {
  it('offers only the two crafting tools and patches the draft the person sent, all or nothing', async () => {
    const host = new CraftToolHost(connectTo(platform({ ok: true, content: '{}', durationMs: 0 })), origin);
    expect(host.tools().map((tool) => tool.modelName)).toEqual(['craft_agent', 'try_agent_draft']);
    expect(resultOf(await host.call('craft_agent', { patch: [{ op: 'replace', path: '/task', value: 'Watch.' }] }, signal))).toMatchObject({ ok: true, draft: { name: 'draft', task: 'Watch.' } });
    expect(resultOf(await host.call('craft_agent', { patch: [{ op: 'replace', path: '/name', value: 'x' }, { op: 'remove', path: '/nope' }] }, signal))).toMatchObject({ ok: false, code: 'PATCH_PATH_NOT_FOUND' });
    expect(resultOf(await host.call('craft_agent', { patch: [{ op: 'replace', path: '/permissionMode', value: 'yolo' }] }, signal))).toMatchObject({ ok: false, code: 'PATCH_SPEC_INVALID' });
    expect(resultOf(await host.call('delete_everything', {}, signal))).toMatchObject({ code: 'tool_unknown' });
    expect(craftTurnInput(origin)).toBe(`hi\n\n--- the canvas now:\n${JSON.stringify(canvas)}`);
  });

  it('tries the patched draft through the platform, keeps the tries under the id it returns, and passes a refusal on with its code', async () => {
    const tried = platform({ ok: true, content: JSON.stringify({ runId: '0190a000-0000-7000-8000-0000000000c1', agentId: '0190a000-0000-7000-8000-0000000000b2', eventId: '0190a000-0000-7000-8000-0000000000d1' }), durationMs: 0 });
    let connects = 0;
    const host = new CraftToolHost(() => (connects++, connectTo(tried)()), origin);
    await host.call('craft_agent', { patch: [{ op: 'replace', path: '/task', value: 'Watch.' }] }, signal);
    expect(resultOf(await host.call('try_agent_draft', {}, signal))).toMatchObject({ ok: true, agentId: '0190a000-0000-7000-8000-0000000000b2' });
    await host.call('try_agent_draft', {}, signal);
    expect(tried.sent.map((call) => call.name)).toEqual([`platform.${CRAFT_TRY_PLATFORM_TOOL}`, `platform.${CRAFT_TRY_PLATFORM_TOOL}`]);
    expect(tried.sent[0]!.args).toMatchObject({ spec: { task: 'Watch.' }, agentId: origin.agentId });
    expect(tried.sent[1]!.args).toMatchObject({ agentId: '0190a000-0000-7000-8000-0000000000b2' });
    // The platform connection (agent token, listing) is made once, at the first try.
    expect(connects).toBe(1);

    const refused = new CraftToolHost(connectTo(platform({ ok: false, error: { code: 'tool_failed', message: JSON.stringify({ error: { code: 'NO_FACT_TO_REPLAY', message: 'nothing matches' } }) }, durationMs: 0 })), origin);
    expect(resultOf(await refused.call('try_agent_draft', {}, signal))).toEqual({ ok: false, code: 'NO_FACT_TO_REPLAY', message: 'nothing matches' });
    expect(resultOf(await refused.call('try_agent_draft', { eventId: 'not-a-uuid' }, signal))).toMatchObject({ ok: false, code: 'TRY_ARGUMENTS_INVALID' });
  });
});
