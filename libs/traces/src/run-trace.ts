import { createHash } from 'node:crypto';
import { MAX_TRACE_SPANS, TRACE_TEXT_CHARS, type RunTrace, type TraceAttributes, type TraceSpan } from '@switchyard/contracts';

/** What a run's trace is built from: its row, its transcript entries in seq order, and its approvals and waits. */
export interface TraceInput {
  run: {
    id: string;
    workspaceId: string;
    agentId: string;
    agentVersion: number;
    status: string;
    reason: string | null;
    originType: string;
    queuedAt: Date;
    endedAt: Date | null;
    /** The run's model as its version's spec names it; null when the version is gone. */
    model: { provider: string; name: string } | null;
  };
  entries: { seq: number; type: string; content: Record<string, unknown>; at: Date }[];
  /** Approval rows: `tool` and `plan` are approvals; any other kind is a wait on something else. */
  approvals: { id: string; kind: string; toolCallId: string; toolName: string | null; status: string; requestedAt: Date; decidedAt: Date | null }[];
}

/** A span id: 16 hex digits of SHA-256 over the run id and what the span stands for, so a re-export repeats its ids. */
export const spanIdOf = (runId: string, what: string) => createHash('sha256').update(`${runId}:${what}`).digest('hex').slice(0, 16);

const cut = (text: string) => (text.length > TRACE_TEXT_CHARS ? `${text.slice(0, TRACE_TEXT_CHARS)}…` : text);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const iso = (at: Date) => at.toISOString();
/** Drops absent values: OpenTelemetry attributes have no null. */
const attrs = (values: Record<string, string | number | boolean | undefined>): TraceAttributes =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as TraceAttributes;

/**
 * A run's trace (decision 0057): the run span, and under it one span per model
 * call (`assistant` entry), tool call (`tool` entry), approval or wait, and
 * notice. An entry is written when its step ends, so a call's span ends at its
 * entry and starts its recorded `durationMs` earlier (a model call recorded
 * before that field existed starts at the entry before it).
 */
export function buildRunTrace(input: TraceInput): RunTrace {
  const { run } = input;
  const rootId = spanIdOf(run.id, 'run');
  const children: TraceSpan[] = [];
  const totals = { inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 };
  let previousAt = run.queuedAt;
  const span = (what: string, fields: Omit<TraceSpan, 'spanId' | 'parentSpanId' | 'children'>): TraceSpan => ({ spanId: spanIdOf(run.id, what), parentSpanId: rootId, ...fields, children: [] });

  for (const entry of input.entries) {
    const end = entry.at;
    const content = entry.content;
    if (entry.type === 'assistant') {
      const usage = (content.usage ?? {}) as Record<string, unknown>;
      const duration = num(content.durationMs);
      const start = duration === undefined ? previousAt : new Date(end.getTime() - duration);
      const inputTokens = num(usage.inputTokens) ?? 0;
      const outputTokens = num(usage.outputTokens) ?? 0;
      const costUsd = num(content.costUsd) ?? 0;
      totals.inputTokens += inputTokens;
      totals.outputTokens += outputTokens;
      totals.costUsd += costUsd;
      totals.modelCalls += 1;
      children.push(
        span(`entry:${entry.seq}`, {
          kind: 'model_call',
          name: `chat ${run.model?.name ?? 'model'}`,
          startTime: iso(start),
          endTime: iso(end),
          status: 'ok',
          attributes: attrs({
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': run.model?.provider,
            'gen_ai.request.model': run.model?.name,
            'gen_ai.usage.input_tokens': inputTokens,
            'gen_ai.usage.output_tokens': outputTokens,
            'switchyard.cost_usd': costUsd,
            'switchyard.tool_calls': Array.isArray(content.toolCalls) ? content.toolCalls.length : 0,
            'switchyard.transcript.seq': entry.seq,
          }),
        }),
      );
    } else if (entry.type === 'tool') {
      const duration = num(content.durationMs) ?? 0;
      const ok = content.ok === true;
      const error = (content.error ?? {}) as Record<string, unknown>;
      totals.toolCalls += 1;
      children.push(
        span(`entry:${entry.seq}`, {
          kind: 'tool_call',
          name: `execute_tool ${str(content.name) ?? 'tool'}`,
          startTime: iso(new Date(end.getTime() - duration)),
          endTime: iso(end),
          status: ok ? 'ok' : 'error',
          attributes: attrs({
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': str(content.name),
            'gen_ai.tool.call.id': str(content.toolCallId),
            'switchyard.tool.ok': ok,
            'switchyard.tool.result': ok ? cut(str(content.result) ?? '') : undefined,
            'switchyard.tool.error_code': ok ? undefined : str(error.code),
            'switchyard.tool.error': ok ? undefined : cut(str(error.message) ?? ''),
            'switchyard.tool.refused': content.refused === true ? true : undefined,
            'switchyard.tool.would_have': content.wouldHave === true ? true : undefined,
            'switchyard.transcript.seq': entry.seq,
          }),
        }),
      );
    } else if (entry.type !== 'system' && entry.type !== 'user') {
      // A notice, or an entry type added later (a compaction): a point in time on the run.
      children.push(
        span(`entry:${entry.seq}`, {
          kind: 'notice',
          name: `${entry.type} ${str(content.code) ?? ''}`.trim(),
          startTime: iso(end),
          endTime: iso(end),
          status: 'unset',
          attributes: attrs({ 'switchyard.notice.code': str(content.code), 'switchyard.notice.message': str(content.message) && cut(str(content.message)!), 'switchyard.transcript.seq': entry.seq }),
        }),
      );
    }
    previousAt = end;
  }

  for (const approval of input.approvals) {
    const isApproval = approval.kind === 'tool' || approval.kind === 'plan';
    children.push(
      span(`approval:${approval.id}`, {
        kind: isApproval ? 'approval' : 'wait',
        name: isApproval ? `approval ${approval.toolName ?? approval.kind}` : `wait ${approval.kind}`,
        startTime: iso(approval.requestedAt),
        endTime: approval.decidedAt ? iso(approval.decidedAt) : null,
        status: approval.status === 'pending' ? 'unset' : approval.status === 'approved' ? 'ok' : 'error',
        attributes: attrs({ 'switchyard.approval.id': approval.id, 'switchyard.approval.kind': approval.kind, 'switchyard.approval.status': approval.status, 'gen_ai.tool.call.id': approval.toolCallId }),
      }),
    );
  }

  children.sort((a, b) => a.startTime.localeCompare(b.startTime));
  const truncated = children.length > MAX_TRACE_SPANS - 1;
  const root: TraceSpan = {
    spanId: rootId,
    parentSpanId: null,
    kind: 'run',
    name: `run ${run.id}`,
    startTime: iso(run.queuedAt),
    endTime: run.endedAt ? iso(run.endedAt) : null,
    status: run.status === 'completed' ? 'ok' : run.status === 'failed' ? 'error' : 'unset',
    attributes: attrs({
      'switchyard.workspace.id': run.workspaceId,
      'switchyard.run.id': run.id,
      'switchyard.run.status': run.status,
      'switchyard.run.reason': run.reason ?? undefined,
      'switchyard.run.origin': run.originType,
      'switchyard.agent.id': run.agentId,
      'switchyard.agent.version': run.agentVersion,
      'gen_ai.request.model': run.model?.name,
      'gen_ai.usage.input_tokens': totals.inputTokens,
      'gen_ai.usage.output_tokens': totals.outputTokens,
      'switchyard.cost_usd': Math.round(totals.costUsd * 1e6) / 1e6,
      'switchyard.model_calls': totals.modelCalls,
      'switchyard.tool_calls': totals.toolCalls,
    }),
    children: truncated ? children.slice(0, MAX_TRACE_SPANS - 1) : children,
  };
  return { traceId: run.id.replaceAll('-', '').toLowerCase(), runId: run.id, root, truncated };
}
