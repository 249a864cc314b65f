import { MAX_TRACE_SPANS, RunTraceSchema } from '@switchyard/contracts';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { buildRunTrace, spanIdOf, toReadableSpans, tracesUrlOf, type TraceInput } from '../src';

const RUN = '0192f5a4-7b3c-7def-8a12-3456789abcde';
const at = (ms: number) => new Date(Date.UTC(2026, 11, 5, 9, 0, 0) + ms);

/** A run that asked the model, called a tool, parked on an approval, ran the approved call and finished. */
function input(overrides: Partial<TraceInput['run']> = {}): TraceInput {
  return {
    run: { id: RUN, workspaceId: '0192f5a4-0000-7000-8000-000000000001', agentId: '0192f5a4-0000-7000-8000-000000000002', agentVersion: 3, status: 'completed', reason: null, originType: 'trigger', queuedAt: at(0), endedAt: at(9_000), model: { provider: 'openai', name: 'gpt-x' }, ...overrides },
    entries: [
      { seq: 1, type: 'system', content: { text: 'be brief' }, at: at(100) },
      { seq: 2, type: 'user', content: { text: 'task' }, at: at(100) },
      { seq: 3, type: 'assistant', content: { text: null, toolCalls: [{ id: 'c1', name: 'web.echo', arguments: '{}' }], usage: { inputTokens: 120, outputTokens: 8 }, costUsd: 0.001, durationMs: 700 }, at: at(900) },
      { seq: 4, type: 'tool', content: { toolCallId: 'c1', name: 'web.echo', ok: true, result: 'x'.repeat(5_000), durationMs: 40 }, at: at(1_000) },
      { seq: 5, type: 'assistant', content: { text: null, toolCalls: [{ id: 'c2', name: 'web.delete_everything', arguments: '{}' }], usage: { inputTokens: 150, outputTokens: 9 }, costUsd: 0.002 }, at: at(1_500) },
      { seq: 6, type: 'tool', content: { toolCallId: 'c2', name: 'web.delete_everything', ok: false, error: { code: 'tool_failed', message: 'no' }, durationMs: 10 }, at: at(8_000) },
      { seq: 7, type: 'notice', content: { code: 'budget_warning', message: 'close to the cap' }, at: at(8_100) },
      { seq: 8, type: 'assistant', content: { text: 'done', toolCalls: [], usage: { inputTokens: 170, outputTokens: 2 }, costUsd: 0.003, durationMs: 300 }, at: at(8_900) },
    ],
    approvals: [{ id: '0192f5a4-0000-7000-8000-0000000000aa', kind: 'tool', toolCallId: 'c2', toolName: 'delete_everything', status: 'approved', requestedAt: at(1_600), decidedAt: at(7_900) }],
  };
}

describe('a run as a trace (issue 35 §6)', () => {
  it('makes the run span with one child per model call, tool call, approval and notice, in time order, with token counts', () => {
    const trace = RunTraceSchema.parse(buildRunTrace(input()));
    expect(trace.traceId).toBe(RUN.replaceAll('-', ''));
    expect(trace.root).toMatchObject({ kind: 'run', parentSpanId: null, status: 'ok', startTime: at(0).toISOString(), endTime: at(9_000).toISOString() });
    expect(trace.root.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 440, 'gen_ai.usage.output_tokens': 19, 'switchyard.model_calls': 3, 'switchyard.tool_calls': 2, 'switchyard.cost_usd': 0.006 });
    expect(trace.root.children.map((span) => [span.kind, span.name])).toEqual([
      ['model_call', 'chat gpt-x'],
      ['tool_call', 'execute_tool web.echo'],
      ['model_call', 'chat gpt-x'],
      ['approval', 'approval delete_everything'],
      ['tool_call', 'execute_tool web.delete_everything'],
      ['notice', 'notice budget_warning'],
      ['model_call', 'chat gpt-x'],
    ]);
    const [first, echo, second, approval, failed] = trace.root.children;
    // A call's span ends at its entry and starts its duration earlier; one recorded without a duration starts at the entry before it.
    expect([first!.startTime, first!.endTime]).toEqual([at(200).toISOString(), at(900).toISOString()]);
    expect([second!.startTime, second!.endTime]).toEqual([at(1_000).toISOString(), at(1_500).toISOString()]);
    expect(first!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 8, 'gen_ai.request.model': 'gpt-x', 'gen_ai.provider.name': 'openai' });
    expect(String(echo!.attributes['switchyard.tool.result'])).toHaveLength(2_001);
    expect(approval).toMatchObject({ status: 'ok', startTime: at(1_600).toISOString(), endTime: at(7_900).toISOString() });
    expect(failed).toMatchObject({ status: 'error', attributes: expect.objectContaining({ 'switchyard.tool.error_code': 'tool_failed' }) });
    for (const span of trace.root.children) expect(span.parentSpanId).toBe(trace.root.spanId);
  });

  it('gives the same ids every time, an open run no end, and keeps at most MAX_TRACE_SPANS spans', () => {
    expect(buildRunTrace(input())).toEqual(buildRunTrace(input()));
    expect(buildRunTrace(input()).root.spanId).toBe(spanIdOf(RUN, 'run'));
    const open = buildRunTrace({ ...input({ status: 'awaiting_approval', endedAt: null }), approvals: [{ ...input().approvals[0]!, status: 'pending', decidedAt: null }] });
    expect(open.root).toMatchObject({ endTime: null, status: 'unset' });
    expect(open.root.children.find((span) => span.kind === 'approval')).toMatchObject({ endTime: null, status: 'unset' });
    const many = input();
    many.entries = Array.from({ length: MAX_TRACE_SPANS + 10 }, (_, i) => ({ seq: i + 1, type: 'notice', content: { code: 'n', message: 'm' }, at: at(i) }));
    const cut = buildRunTrace(many);
    expect(cut.truncated).toBe(true);
    expect(cut.root.children.length + 1).toBe(MAX_TRACE_SPANS);
  });

  it('hands the OpenTelemetry SDK the same tree: its OTLP JSON carries the trace ids, parents, times and attributes', () => {
    const trace = buildRunTrace(input());
    const body = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(toReadableSpans(trace)))) as {
      resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId?: string; name: string; startTimeUnixNano: string; endTimeUnixNano: string; attributes: { key: string }[] }[] }[] }[];
    };
    const [resourceSpans] = body.resourceSpans;
    expect(resourceSpans!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'switchyard' } });
    const spans = resourceSpans!.scopeSpans.flatMap((scope) => scope.spans);
    expect(spans).toHaveLength(8);
    const root = spans.find((span) => span.spanId === trace.root.spanId)!;
    expect(root).toMatchObject({ traceId: trace.traceId, name: trace.root.name, startTimeUnixNano: String(at(0).getTime() * 1e6), endTimeUnixNano: String(at(9_000).getTime() * 1e6) });
    expect(root.parentSpanId ?? '').toBe('');
    for (const span of trace.root.children) {
      const sent = spans.find((s) => s.spanId === span.spanId)!;
      expect(sent).toMatchObject({ traceId: trace.traceId, parentSpanId: trace.root.spanId, name: span.name });
      expect(sent.attributes.map((a) => a.key)).toEqual(expect.arrayContaining(Object.keys(span.attributes)));
    }
  });

  it('sends to `<endpoint>/v1/traces`, as the OpenTelemetry spec appends it', () => {
    expect(tracesUrlOf('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrlOf('http://collector:4318/base/')).toBe('http://collector:4318/base/v1/traces');
  });
});
