import { ProcessCapacity } from '../src/process-capacity';
import { ModelError } from '../src/model/model';
import { StreamedAnswer } from '../src/model/openai-stream';
import { MAX_RUNNER_CONCURRENCY, runnerCapacity } from '../src/runner-capacity';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

const GiB = 2 ** 30;

describe('issue 37: a runner’s capacity', () => {
  it('is RUNNER_CONCURRENCY when set, else half the heap (or a quarter of memory) at 256 KiB a run, between 100 and 10,000', () => {
    expect(runnerCapacity(25_000, { heapLimitBytes: GiB, totalMemoryBytes: GiB })).toBe(25_000);
    expect(MAX_RUNNER_CONCURRENCY).toBeGreaterThanOrEqual(10_000);
    // A 4 GiB heap on 24 GiB: 2 GiB / 256 KiB.
    expect(runnerCapacity(undefined, { heapLimitBytes: 4 * GiB, totalMemoryBytes: 24 * GiB })).toBe(8192);
    // A small machine: a quarter of 2 GiB.
    expect(runnerCapacity(undefined, { heapLimitBytes: 4 * GiB, totalMemoryBytes: 2 * GiB })).toBe(2048);
    expect(runnerCapacity(undefined, { heapLimitBytes: 16 * 2 ** 20, totalMemoryBytes: GiB })).toBe(100);
    expect(runnerCapacity(undefined, { heapLimitBytes: 64 * GiB, totalMemoryBytes: 256 * GiB })).toBe(10_000);
  });

  it('says when the process becomes full and when a slot frees (back-pressure on activation jobs)', () => {
    const told: boolean[] = [];
    const capacity = new ProcessCapacity(3, (full) => told.push(full));
    const reserved = capacity.reserve(10);
    expect(reserved).toBe(3);
    expect(told).toEqual([true]);
    capacity.settle(reserved, 2);
    expect(told).toEqual([true, false]);
    capacity.settle(capacity.reserve(1), 1);
    expect(told).toEqual([true, false, true]);
    // An ending whose claim takes the freed slot again stays full: nothing to tell.
    capacity.ending(1);
    expect(told).toEqual([true, false, true]);
  });
});

describe('issue 37: a streamed answer', () => {
  const chunk = (delta: Record<string, unknown>, usage?: ChatCompletionChunk['usage']): ChatCompletionChunk =>
    ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: usage ? [] : [{ index: 0, delta, finish_reason: null }], ...(usage ? { usage } : {}) }) as ChatCompletionChunk;

  it('joins the text and each tool call’s arguments once, with the usage of the last chunk', () => {
    const answer = new StreamedAnswer();
    answer.add(chunk({ role: 'assistant', content: '' }));
    answer.add(chunk({ content: 'Hel' }));
    answer.add(chunk({ content: 'lo' }));
    answer.add(chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'get', arguments: '{"i' } }] }));
    answer.add(chunk({ tool_calls: [{ index: 0, function: { arguments: 'd":1}' } }] }));
    answer.add(chunk({}, { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }));
    expect(answer.response()).toEqual({ message: 'Hello', toolCalls: [{ id: 'a', name: 'get', arguments: '{"id":1}' }], usage: { inputTokens: 5, outputTokens: 2 } });
  });

  it('gives null for no text, and refuses a stream that carried no choice', () => {
    const empty = new StreamedAnswer();
    empty.add(chunk({ role: 'assistant', content: '' }));
    expect(empty.response().message).toBeNull();
    expect(() => new StreamedAnswer().response()).toThrow(ModelError);
  });
});
