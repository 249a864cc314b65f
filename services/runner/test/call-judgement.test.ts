import { MAX_APPROVAL_PREVIEW_CHARS } from '@switchyard/contracts';
import { decisionOf, judgeCall } from '../src/loop/call-judgement';
import { PLAN_TOOL } from '../src/loop/plan-tool';
import type { RecordedApproval } from '../src/loop/loop-ports';
import type { ToolDefinition } from '../src/tools';

/**
 * Why this exists: what a person sees on an approval (the preview, its
 * redaction and cut, the class and why) and what the model is told of a
 * decision are built here, before any storage; these pin them.
 */
const echo: ToolDefinition = { name: 'web.echo', modelName: 'web__echo', description: '', inputSchema: {}, server: 'web', readOnly: true, destructive: false, trusted: false };
const input = { policy: { permissionMode: 'default' as const, rules: { allow: [], deny: [], ask: [] } }, redact: (text: string) => text.replaceAll('s3cret', '[redacted]'), reason: 'I will echo' };
const call = (args: unknown, name = 'web__echo') => ({ id: 'c1', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });

describe('judging a call', () => {
  it('asks with the class, why, the redacted arguments and the model’s reason', () => {
    const judged = judgeCall(call({ text: 'token s3cret' }), echo, input);
    expect(judged).toMatchObject({
      type: 'ask',
      request: {
        kind: 'tool',
        toolCallId: 'c1',
        tool: { server: 'web', name: 'web.echo', class: 'write', why: expect.stringContaining('default mode asks') },
        argumentsPreview: '{"text":"token [redacted]"}',
        truncated: false,
        reason: 'I will echo',
      },
    });
  });

  it('cuts a long preview and says so', () => {
    const judged = judgeCall(call({ text: 'x'.repeat(10_000) }), echo, input);
    if (judged.type !== 'ask') throw new Error('expected an ask');
    expect(judged.request.argumentsPreview).toHaveLength(MAX_APPROVAL_PREVIEW_CHARS);
    expect(judged.request.truncated).toBe(true);
  });

  it('refuses unknown tools and arguments that are not an object; a plan asks with the plan as preview', () => {
    expect(judgeCall(call({}, 'nope'), undefined, input)).toMatchObject({ type: 'refuse', code: 'tool_unknown' });
    expect(judgeCall(call('[1]'), echo, input)).toMatchObject({ type: 'refuse', code: 'tool_arguments_invalid' });
    expect(judgeCall(call({ plan: '1. read\n2. write' }, PLAN_TOOL.modelName), PLAN_TOOL, input)).toMatchObject({
      type: 'ask',
      request: { kind: 'plan', tool: null, argumentsPreview: '1. read\n2. write' },
    });
    expect(judgeCall(call({ plan: '' }, PLAN_TOOL.modelName), PLAN_TOOL, input)).toMatchObject({ type: 'refuse', code: 'tool_arguments_invalid' });
  });
});

describe('what a decision tells the model', () => {
  const approval = (over: Partial<RecordedApproval>): RecordedApproval => ({
    id: 'a1',
    toolCallId: 'c1',
    status: 'pending',
    decidedBy: null,
    note: null,
    decidedAt: null,
    expiresAt: '2026-12-08T00:00:00.000Z',
    ...over,
  });

  it('names who decided and their note', () => {
    expect(decisionOf(approval({ status: 'approved' }))).toEqual({ type: 'approved' });
    expect(decisionOf(approval({}))).toEqual({ type: 'pending' });
    expect(decisionOf(approval({ status: 'denied', decidedBy: { type: 'member', userId: '0190a000-0000-7000-8000-000000000001' }, note: 'no' }))).toEqual({
      type: 'refused',
      code: 'approval_denied',
      message: 'a person (member 0190a000-0000-7000-8000-000000000001) denied this call; their note: no',
    });
    expect(decisionOf(approval({ status: 'denied', decidedBy: { type: 'system', reason: 'run_stopped' } }))).toMatchObject({ message: 'the platform denied this call: the run was stopped' });
    expect(decisionOf(approval({ status: 'expired', decidedBy: { type: 'system', reason: 'expired' } }))).toMatchObject({ code: 'approval_expired', message: expect.stringContaining('2026-12-08T00:00:00.000Z') });
  });
});
