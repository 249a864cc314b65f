import type { Fact } from '@switchyard/contracts';
import { ModelError, type ModelInput } from '../src/model/model';
import { ScriptedModel, scriptStepDelayMs, type ScriptStep } from '../src/model/scripted-model';
import { renderArguments, renderText } from '../src/model/script-template';

const fact: Fact = {
  id: '0190a000-0000-7000-8000-0000000000f1',
  seq: 7,
  workspace: 'acme',
  kind: 'build.failed',
  subject: { type: 'build', id: 'b-42' },
  actor: { type: 'user', id: 'u-1', name: 'Ada' },
  payload: { failures: 3, flaky: false, branch: { name: 'main' }, tests: ['a', 'b'], owner: null },
  ts: '2025-01-01T00:00:00.000Z',
};
const input = (signal = new AbortController().signal): ModelInput => ({ messages: [], tools: [], signal });

describe('script templates', () => {
  it('renders fact fields inside text, non-strings as JSON', () => {
    expect(renderText('{{event.kind}} on {{ event.subject.id }} by {{event.actor.id}} ({{event.id}})', fact)).toBe(
      'build.failed on b-42 by u-1 (0190a000-0000-7000-8000-0000000000f1)',
    );
    expect(renderText('n={{event.payload.failures}} tests={{event.payload.tests}} owner={{event.payload.owner}}', fact)).toBe('n=3 tests=["a","b"] owner=null');
  });

  it('keeps the JSON type of a string that is exactly one placeholder', () => {
    expect(renderArguments('{{event.payload.failures}}', fact)).toBe(3);
    expect(renderArguments('{{event.payload.flaky}}', fact)).toBe(false);
    expect(renderArguments('{{event.payload.owner}}', fact)).toBeNull();
    expect(renderArguments('{{event.payload.branch}}', fact)).toEqual({ name: 'main' });
    expect(renderArguments('{{event.payload.tests.1}}', fact)).toBe('b');
  });

  it('renders missing paths (and every path without a fact) as the empty string', () => {
    expect(renderArguments('{{event.payload.nope.deeper}}', fact)).toBe('');
    expect(renderArguments('{{event.payload.tests.x}}', fact)).toBe('');
    expect(renderArguments('{{event.payload.constructor}}', fact)).toBe('');
    expect(renderArguments('{{event.payload.__proto__}}', fact)).toBe('');
    expect(renderText('[{{event.payload.nope}}]', fact)).toBe('[]');
    expect(renderArguments('{{event.subject.id}}', null)).toBe('');
    expect(renderText('build {{event.subject.id}}!', null)).toBe('build !');
  });

  it('renders nested objects and arrays deeply and leaves keys, other braces and non-strings alone', () => {
    const args = {
      '{{event.kind}}': 1,
      issue: { title: 'Build {{event.subject.id}} failed', labels: ['ci', '{{event.payload.branch.name}}'], count: '{{event.payload.failures}}' },
      literal: '{{other.thing}}',
      flag: true,
      n: 5,
    };
    expect(renderArguments(args, fact)).toEqual({
      '{{event.kind}}': 1,
      issue: { title: 'Build b-42 failed', labels: ['ci', 'main'], count: 3 },
      literal: '{{other.thing}}',
      flag: true,
      n: 5,
    });
  });
});

describe('ScriptedModel', () => {
  it('draws a step with a chance once per seed: the same seed the same answer, different seeds about the chance', async () => {
    const noisy: ScriptStep[] = [{ say: 'done', chance: 0.7 }];
    const said = async (seed: string) => (await new ScriptedModel({ script: noisy, fact: null, seed }).complete(input())).message;
    const seeds = Array.from({ length: 400 }, (_, i) => `run-${i}`);
    const first = await Promise.all(seeds.map(said));
    expect(await Promise.all(seeds.map(said))).toEqual(first);
    const applied = first.filter((message) => message === 'done').length;
    expect(applied).toBeGreaterThan(0.6 * seeds.length);
    expect(applied).toBeLessThan(0.8 * seeds.length);
    // chance 0 never applies, 1 always; with `when`, both must hold.
    expect((await new ScriptedModel({ script: [{ say: 'x', chance: 0 }], fact, seed: 's' }).complete(input())).message).toBe('');
    expect((await new ScriptedModel({ script: [{ say: 'x', chance: 1, when: { path: 'payload.flaky', op: 'eq', value: true } }], fact, seed: 's' }).complete(input())).message).toBe('');
  });

  const script: ScriptStep[] = [
    { tool: 'github.create_issue', arguments: { title: 'Build {{event.subject.id}} failed', failures: '{{event.payload.failures}}' } },
    { say: 'only on main', tool: 'slack.post', arguments: { channel: 'ci' }, when: { path: 'payload.branch.name', op: 'eq', value: 'main' } },
    { say: 'only on release', when: { path: 'payload.branch.name', op: 'eq', value: 'release' } },
    { say: 'Filed the issue for {{event.subject.id}}.' },
  ];

  it('answers with the next step whose when holds, tool calls templated from the fact, then the final message', async () => {
    const model = new ScriptedModel({ script, fact });
    expect(await model.complete(input())).toEqual({
      message: null,
      toolCalls: [{ id: 'scripted_call_0', name: 'github.create_issue', arguments: JSON.stringify({ title: 'Build b-42 failed', failures: 3 }) }],
      usage: { inputTokens: 0, outputTokens: 0 },
      final: false,
    });
    expect(await model.complete(input())).toEqual({
      message: 'only on main',
      toolCalls: [{ id: 'scripted_call_1', name: 'slack.post', arguments: '{"channel":"ci"}' }],
      usage: { inputTokens: 0, outputTokens: 0 },
      final: false,
    });
    expect(await model.complete(input())).toEqual({ message: 'Filed the issue for b-42.', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, final: true });
  });

  it('runs to its last step: a say-only step is final only when no later step applies', async () => {
    const model = new ScriptedModel({ script: [{ say: 'one' }, { say: 'two' }, { say: 'never', when: { path: 'kind', op: 'eq', value: 'other.kind' } }], fact });
    expect(await model.complete(input())).toMatchObject({ message: 'one', toolCalls: [], final: false });
    expect(await model.complete(input())).toMatchObject({ message: 'two', toolCalls: [], final: true });
  });

  it('skips steps with a when on a manual run (no fact)', async () => {
    const model = new ScriptedModel({ script, fact: null });
    expect((await model.complete(input())).toolCalls[0]!.arguments).toBe(JSON.stringify({ title: 'Build  failed', failures: '' }));
    expect(await model.complete(input())).toMatchObject({ message: 'Filed the issue for .', toolCalls: [] });
  });

  it('once exhausted, answers with the last message said, or the empty string', async () => {
    const model = new ScriptedModel({ script: [{ say: 'first', tool: 't' }, { tool: 'u' }], fact });
    await model.complete(input());
    await model.complete(input());
    expect(await model.complete(input())).toEqual({ message: 'first', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, final: true });
    expect(await model.complete(input())).toEqual({ message: 'first', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, final: true });
    const silent = new ScriptedModel({ script: [{ tool: 't' }], fact });
    await silent.complete(input());
    expect(await silent.complete(input())).toMatchObject({ message: '', toolCalls: [] });
    expect(await new ScriptedModel({ script: [], fact: null }).complete(input())).toMatchObject({ message: '', toolCalls: [] });
  });

  it('a run continued after its answers (issue 14) resumes the script where it was, with the last message said', async () => {
    const fresh = new ScriptedModel({ script, fact });
    const answers = [await fresh.complete(input()), await fresh.complete(input()), await fresh.complete(input())];
    expect(await new ScriptedModel({ script, fact, answered: 1 }).complete(input())).toEqual(answers[1]);
    expect(await new ScriptedModel({ script, fact, answered: 2 }).complete(input())).toEqual(answers[2]);
    // Past the end: the last message said, as the same model would answer.
    expect(await new ScriptedModel({ script: [{ say: 'first', tool: 't' }, { tool: 'u' }], fact, answered: 5 }).complete(input())).toMatchObject({ message: 'first', toolCalls: [], final: true });
  });

  it('waits stepMs before answering, and an abort ends the wait with model_aborted', async () => {
    const slow = new ScriptedModel({ script: [{ say: 'x' }], fact, stepMs: 100 });
    let started = Date.now();
    await slow.complete(input());
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);

    const aborting = new AbortController();
    started = Date.now();
    // Aborted once the call is waiting (complete() has begun its wait when it returns its promise).
    const waiting = new ScriptedModel({ script: [{ say: 'x' }], fact, stepMs: 10_000 }).complete(input(aborting.signal)).catch((e: unknown) => e);
    aborting.abort();
    const error = await waiting;
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_aborted' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('reads stepMs from model params like the issue-3 executor', () => {
    expect(scriptStepDelayMs(undefined)).toBe(0);
    expect(scriptStepDelayMs({ stepMs: 25 })).toBe(25);
    expect(scriptStepDelayMs({ stepMs: '25' })).toBe(0);
    expect(scriptStepDelayMs({ stepMs: 1e9 })).toBe(60_000);
  });

  it('refuses a when the filter language would refuse, at construction', () => {
    const deep = { not: { not: { not: { not: { not: { not: { not: { not: { not: { path: 'kind', op: 'eq', value: 'x' } } } } } } } } } } as ScriptStep['when'];
    expect(() => new ScriptedModel({ script: [{ say: 'x', when: deep }], fact })).toThrow();
  });
});

describe('a crafting script (decision 0056): steps that answer what the person said', () => {
  const said = (text: string): ModelInput['messages'] => [
    { role: 'system', content: 'crafting' },
    { role: 'user', content: 'earlier: watch builds' },
    { role: 'assistant', content: 'ok', toolCalls: [] },
    { role: 'user', content: `${text}\n\n--- the canvas now:\n{"name":"watch builds"}` },
  ];
  const script: ScriptStep[] = [
    { heard: '^watch', tool: 'craft_agent', arguments: { patch: [{ op: 'replace', path: '/script', value: [{ say: 'saw {{event.subject.id}}' }] }] }, literal: true },
    { heard: '^watch', say: 'Watching.' },
    { heard: '^try it', tool: 'try_agent_draft', arguments: { eventId: '{{event.id}}' } },
    { heard: '^try it', say: 'Tried.' },
  ];

  it('takes only the steps whose `heard` matches the newest user message, and ends after them', async () => {
    const model = new ScriptedModel({ script, fact: null });
    const first = await model.complete({ ...input(), messages: said('try it on the last one') });
    expect(first).toMatchObject({ toolCalls: [{ name: 'try_agent_draft', arguments: JSON.stringify({ eventId: '' }) }], final: false });
    const withResult = [...said('try it on the last one'), { role: 'tool' as const, toolCallId: 'scripted_call_2', content: '{}' }];
    expect(await model.complete({ ...input(), messages: withResult })).toMatchObject({ message: 'Tried.', toolCalls: [], final: true });
  });

  it('sends literal arguments as written (the crafted agent keeps its placeholders), and waits a step’s pauseMs', async () => {
    const model = new ScriptedModel({ script: [{ ...script[0]!, pauseMs: 150 }, script[1]!], fact: null });
    const t0 = performance.now();
    const answer = await model.complete({ ...input(), messages: said('watch builds with failures') });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(JSON.parse(answer.toolCalls[0]!.arguments)).toEqual({ patch: [{ op: 'replace', path: '/script', value: [{ say: 'saw {{event.subject.id}}' }] }] });
    expect(answer.final).toBe(false);
  });
});
