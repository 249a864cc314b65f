import { emptyRunState } from '../src/loop/run-state';
import { buildHistory, contextMessages, needsHead, type SessionEntry } from '../src/loop/session-memory';

/** Decision 0052: a teammate turn's history from its session's entries (pure). */
describe('session memory', () => {
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  const C = '00000000-0000-4000-8000-00000000000c';
  const usage = { inputTokens: 1, outputTokens: 1 };
  const user = (seq: number, runId: string, text: string): SessionEntry => ({ seq, runId, type: 'user', content: { text } });
  const said = (seq: number, runId: string, text: string | null, toolCalls: Array<{ id: string; name: string; arguments: string }> = []): SessionEntry => ({
    seq,
    runId,
    type: 'assistant',
    content: { text, toolCalls, usage, costUsd: 0 },
  });
  const head: SessionEntry[] = [
    { seq: 1, runId: A, type: 'system', content: { text: 'SYSTEM' } },
    user(2, A, 'TASK'),
  ];

  it('lays out head, then the turns in order; notices are not sent; tokens are estimated at four characters', () => {
    const history = buildHistory({
      memory: null,
      entries: [...head, user(3, A, 'one'), said(4, A, 'ok 1'), { seq: 5, runId: A, type: 'notice', content: { code: 'x', message: 'not sent' } }, user(6, B, 'two'), said(7, B, 'ok 2')],
    });
    expect(history.memory).toEqual({ maxContextTokens: 16_000, keepRecentTurns: 4 });
    expect(history.head.map((message) => message.content)).toEqual(['SYSTEM', 'TASK']);
    expect(history.body.map((message) => message.content)).toEqual(['one', 'ok 1', 'two', 'ok 2']);
    expect(history.turns.map((turn) => [turn.runId, turn.fromSeq, turn.throughSeq])).toEqual([
      [A, 3, 4],
      [B, 6, 7],
    ]);
    expect(history.tokens).toBe(Math.ceil('SYSTEMTASK'.length / 4) + Math.ceil('oneok 1twook 2'.length / 4));
  });

  it('drops the calls a turn never answered (a provider refuses them), keeps answered ones', () => {
    const history = buildHistory({
      memory: { maxContextTokens: 2000, keepRecentTurns: 1 },
      entries: [
        ...head,
        user(3, A, 'go'),
        said(4, A, 'calling', [{ id: 'c1', name: 'echo', arguments: '{}' }]),
        { seq: 5, runId: A, type: 'tool', content: { toolCallId: 'c1', name: 'echo', ok: true, result: 'r' } },
        said(6, A, null, [{ id: 'c2', name: 'echo', arguments: '{}' }]),
        user(7, B, 'next'),
      ],
    });
    expect(history.memory).toEqual({ maxContextTokens: 2000, keepRecentTurns: 1 });
    expect(history.body.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('after a compaction: the summary replaces its range, the head stays, later turns follow', () => {
    const history = buildHistory({
      memory: null,
      entries: [
        ...head,
        user(6, B, 'two'),
        said(7, B, 'ok 2'),
        user(8, C, 'three'),
        { seq: 9, runId: C, type: 'compaction', content: { summary: 'S', fromSeq: 3, throughSeq: 5, turns: 1, tokensBefore: 9, tokensAfter: 5, usage, costUsd: 0 } },
      ],
    });
    expect(history.summary).toEqual({ text: 'S', fromSeq: 3, throughSeq: 5 });
    expect(history.body[0]!.content).toContain('[summary of the earlier conversation]');
    expect(history.body.slice(1).map((message) => message.content)).toEqual(['two', 'ok 2', 'three']);
  });

  it("what the model is sent: the history's head unless the turn recorded its own", () => {
    const history = buildHistory({ memory: null, entries: [...head, user(3, A, 'one'), said(4, A, 'ok')] });
    const state = emptyRunState(B);
    state.conversation.push({ role: 'user', content: 'now' });
    expect(contextMessages({ history, recorder: { state } }).map((message) => message.content)).toEqual(['SYSTEM', 'TASK', 'one', 'ok', 'now']);
    state.conversation.unshift({ role: 'system', content: 'NEW' }, { role: 'user', content: 'NEW TASK' });
    expect(contextMessages({ history, recorder: { state } }).map((message) => message.content)).toEqual(['NEW', 'NEW TASK', 'one', 'ok', 'now']);
    expect(needsHead(history, 'SYSTEM', 'TASK')).toBe(false);
    expect(needsHead(history, 'SYSTEM v2', 'TASK')).toBe(true);
    expect(needsHead(undefined, 'SYSTEM', 'TASK')).toBe(true);
  });
});
