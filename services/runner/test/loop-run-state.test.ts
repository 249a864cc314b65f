import { RunStateSchema } from '@switchyard/contracts';
import type { StoredEntry } from '../src/loop/loop-ports';
import { asData } from '../src/loop/render';
import { emptyRunState, rebuildRunState } from '../src/loop/run-state';

/** The pure rebuild of a run's state from its transcript entries: what a runner continuing the run starts from. */
const RUN = '0190a000-0000-7000-8000-0000000000a1';
const ENVELOPE = '0190a000-0000-7000-8000-0000000000e1';
const call = (id: string, name = 'web__echo') => ({ id, name, arguments: '{"text":"x"}' });
const answer = (text: string | null, toolCalls: Array<ReturnType<typeof call>>, extra: Record<string, unknown> = {}) => ({
  type: 'assistant',
  content: { text, toolCalls, usage: { inputTokens: 10, outputTokens: 2 }, costUsd: 0.5, ...extra },
});
const entries = (...items: Array<{ type: string; content: unknown }>): StoredEntry[] => items.map((item, i) => ({ seq: i + 1, ...item }));
const prompt = [
  { type: 'notice', content: { code: 'connect_failed', message: 'down: refused' } },
  { type: 'system', content: { text: 'sys' } },
  { type: 'user', content: { text: 'task', from: { type: 'manual' } } },
];

describe('rebuildRunState', () => {
  it('no entries: the empty state, which a run starts from', () => {
    expect(rebuildRunState(RUN, [])).toEqual(emptyRunState(RUN));
  });

  it('execution_ran notices (one per park) add up to the running time of the earlier executions, out of the conversation', () => {
    const ran = (ms: number) => ({ type: 'notice', content: { code: 'execution_ran', message: `ran ${ms} ms`, ranMs: ms } });
    const state = rebuildRunState(RUN, entries(...prompt, ran(1200), ran(345)));
    expect(state.tally.ranMs).toBe(1545);
    expect(state.conversation).toHaveLength(2);
    expect(RunStateSchema.parse(state)).toEqual(state);
  });

  it('an answer whose calls are partly answered: the rest are pending, and the results reach the conversation as data', () => {
    const state = rebuildRunState(
      RUN,
      entries(...prompt, answer(null, [call('c1'), call('c2', 'web__fail')]), {
        type: 'tool',
        content: { toolCallId: 'c1', name: 'web.echo', arguments: { text: 'x' }, ok: true, result: 'x', durationMs: 3 },
      }),
    );
    expect(state.next).toEqual({ type: 'tools', calls: [call('c2', 'web__fail')], final: false });
    expect(state.conversation.at(-1)).toEqual({ role: 'tool', toolCallId: 'c1', content: asData('tool web.echo', 'x') });
    expect(state.tally).toMatchObject({ turns: 1, tokensIn: 10, tokensOut: 2, costUsd: 0.5, toolCalls: { ok: 1, refused: 0, failed: 0 } });
    expect(state.lastSeq).toBe(5);
    expect(RunStateSchema.parse(state)).toEqual(state);
  });

  it('results by verdict; once every call is answered the model is next; a final answer is followed by the close', () => {
    const state = rebuildRunState(
      RUN,
      entries(
        ...prompt,
        answer(null, [call('c1'), call('c2')]),
        { type: 'tool', content: { toolCallId: 'c1', name: 'web.echo', ok: false, error: { code: 'approval_required', message: 'ask' }, refused: true, durationMs: 0 } },
        { type: 'tool', content: { toolCallId: 'c2', name: 'web.echo', ok: false, error: { code: 'tool_timeout', message: 'slow' }, durationMs: 5 } },
      ),
    );
    expect(state.next).toEqual({ type: 'model' });
    expect(state.tally.toolCalls).toEqual({ ok: 0, refused: 1, failed: 1 });
    expect(state.conversation.at(-2)).toEqual({ role: 'tool', toolCallId: 'c1', content: `[tool error approval_required] ${asData('tool web.echo', 'ask')}` });
    const done = rebuildRunState(RUN, entries(...prompt, answer('all done', [])));
    expect(done.next).toEqual({ type: 'finish' });
    expect(done.tally.summary).toBe('all done');
  });

  it('a scripted answer says whether it is final: not final without calls asks again; final with calls closes after them', () => {
    expect(rebuildRunState(RUN, entries(...prompt, answer('step', [], { final: false }))).next).toEqual({ type: 'model' });
    const finalWithCall = rebuildRunState(RUN, entries(...prompt, answer('last', [call('c1')], { final: true })));
    expect(finalWithCall.next).toEqual({ type: 'tools', calls: [call('c1')], final: true });
    const closed = rebuildRunState(RUN, entries(...prompt, answer('last', [call('c1')], { final: true }), { type: 'tool', content: { toolCallId: 'c1', name: 'web.echo', ok: true, result: 'x', durationMs: 1 } }));
    expect(closed.next).toEqual({ type: 'finish' });
  });

  it('messages that came after the final answer ask the model again; their envelopes are remembered; unpriced sticks', () => {
    const state = rebuildRunState(
      RUN,
      entries(...prompt, answer('done', [], { unpriced: true }), { type: 'user', content: { text: 'one more thing', from: { type: 'user', userId: RUN }, envelopeId: ENVELOPE } }, answer('', [])),
    );
    expect(state.envelopeIds).toEqual([ENVELOPE]);
    expect(state.tally).toMatchObject({ turns: 2, unpriced: true, summary: 'done', costUsd: 1 });
    expect(state.conversation.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(state.next).toEqual({ type: 'finish' });
  });

  it('an entry the state depends on that does not parse is refused, not guessed', () => {
    expect(() => rebuildRunState(RUN, entries(...prompt, { type: 'assistant', content: { text: 'x' } }))).toThrow();
    expect(() => rebuildRunState(RUN, entries({ type: 'prompt', content: {} }))).toThrow();
  });
});
