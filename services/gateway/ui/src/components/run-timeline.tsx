import type { RunTrace, TraceSpan } from '../types';
import { usd } from '../format';

const ms = (iso: string) => Date.parse(iso);
const seconds = (value: number) => (value < 1_000 ? `${Math.round(value)} ms` : `${(value / 1_000).toFixed(1)} s`);

/** What a span's row says beside its bar: tokens and cost for a model call, the tool's verdict, an approval's outcome. */
function detail(span: TraceSpan): string {
  const a = span.attributes;
  if (span.kind === 'model_call') return `${a['gen_ai.usage.input_tokens'] ?? 0} in · ${a['gen_ai.usage.output_tokens'] ?? 0} out · ${usd(Number(a['switchyard.cost_usd'] ?? 0))}`;
  if (span.kind === 'tool_call') return a['switchyard.tool.ok'] === true ? 'ok' : String(a['switchyard.tool.error_code'] ?? 'failed');
  if (span.kind === 'approval' || span.kind === 'wait') return String(a['switchyard.approval.status'] ?? '');
  return String(a['switchyard.notice.message'] ?? '');
}

/**
 * The run's spans as bars on one time axis (issue 35 §7, decision 0057):
 * model calls, tool calls, approvals, waits and notices, each placed from its
 * start to its end within the run. An open span runs to now. A list of rows,
 * so it reads in order without the picture.
 */
export function RunTimeline({ trace, now = Date.now() }: { trace: RunTrace; now?: number }) {
  const start = ms(trace.root.startTime);
  const end = Math.max(trace.root.endTime ? ms(trace.root.endTime) : now, start + 1);
  const total = end - start;
  const place = (span: TraceSpan) => {
    const from = Math.min(Math.max(ms(span.startTime) - start, 0), total);
    const to = Math.min(Math.max((span.endTime ? ms(span.endTime) : now) - start, from), total);
    return { left: `${(from / total) * 100}%`, width: `max(2px, ${((to - from) / total) * 100}%)`, duration: to - from };
  };
  return (
    <div className="timeline" data-testid="run-timeline">
      <p className="muted">
        {seconds(total)} from queued to {trace.root.endTime ? 'end' : 'now'} · {trace.root.attributes['gen_ai.usage.input_tokens'] ?? 0} tokens in ·{' '}
        {trace.root.attributes['gen_ai.usage.output_tokens'] ?? 0} out · {usd(Number(trace.root.attributes['switchyard.cost_usd'] ?? 0))}
        {trace.truncated && ' · later spans left out'}
      </p>
      <ol className="timeline-rows">
        {trace.root.children.map((span) => {
          const at = place(span);
          return (
            <li key={span.spanId} className={`timeline-row t-${span.kind} t-${span.status}`} data-span-kind={span.kind}>
              <span className="timeline-label">{span.name}</span>
              <span className="timeline-track" aria-hidden="true">
                <span className="timeline-bar" style={{ left: at.left, width: at.width }} />
              </span>
              <span className="timeline-detail">
                {span.kind === 'notice' ? '' : `${seconds(at.duration)} · `}
                {detail(span)}
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
