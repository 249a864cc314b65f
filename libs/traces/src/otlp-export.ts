import { SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { RunTrace, TraceSpan } from '@switchyard/contracts';

const SCOPE = { name: '@switchyard/traces', version: '1' };
const RESOURCE = resourceFromAttributes({ 'service.name': 'switchyard' });

const hrTime = (iso: string): HrTime => {
  const ms = Date.parse(iso);
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
};
const kindOf = (span: TraceSpan) => (span.kind === 'model_call' || span.kind === 'tool_call' ? SpanKind.CLIENT : SpanKind.INTERNAL);
const statusOf = (span: TraceSpan) =>
  span.status === 'ok' ? { code: SpanStatusCode.OK } : span.status === 'error' ? { code: SpanStatusCode.ERROR, message: String(span.attributes['switchyard.tool.error_code'] ?? span.attributes['switchyard.run.reason'] ?? '') } : { code: SpanStatusCode.UNSET };

/**
 * The trace as the OpenTelemetry SDK's finished spans, with the trace's own
 * ids and times (decision 0057). A span still open (a pending approval of a
 * cancelled run) ends with the run.
 */
export function toReadableSpans(trace: RunTrace): ReadableSpan[] {
  const context = (spanId: string): SpanContext => ({ traceId: trace.traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false });
  const runEnd = trace.root.endTime ?? new Date().toISOString();
  const toSpan = (span: TraceSpan): ReadableSpan => {
    const startTime = hrTime(span.startTime);
    const end = span.endTime ?? runEnd;
    const endTime = hrTime(end);
    const durationMs = Math.max(0, Date.parse(end) - Date.parse(span.startTime));
    return {
      name: span.name,
      kind: kindOf(span),
      spanContext: () => context(span.spanId),
      ...(span.parentSpanId ? { parentSpanContext: context(span.parentSpanId) } : {}),
      startTime,
      endTime,
      status: statusOf(span),
      attributes: { ...span.attributes, 'switchyard.span.kind': span.kind },
      links: [],
      events: [],
      duration: [Math.floor(durationMs / 1000), (durationMs % 1000) * 1e6],
      ended: true,
      resource: RESOURCE,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  };
  return [toSpan(trace.root), ...trace.root.children.map(toSpan)];
}

/** Where OTLP/HTTP traces go for a base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`), as the OpenTelemetry spec appends it. */
export const tracesUrlOf = (endpoint: string) => `${endpoint.replace(/\/+$/, '')}/v1/traces`;

/** Sends run traces to an OTLP/HTTP collector with the SDK's exporter. */
export class RunTraceExporter {
  private readonly exporter: OTLPTraceExporter;

  constructor(options: { endpoint: string; headers?: Record<string, string>; timeoutMs?: number }) {
    this.exporter = new OTLPTraceExporter({ url: tracesUrlOf(options.endpoint), headers: options.headers, timeoutMillis: options.timeoutMs });
  }

  /** Resolves once the collector accepted the spans; rejects otherwise (the caller retries). */
  export(trace: RunTrace): Promise<void> {
    return new Promise((resolve, reject) =>
      this.exporter.export(toReadableSpans(trace), (result) => (result.code === ExportResultCode.SUCCESS ? resolve() : reject(result.error ?? new Error('OTLP export failed')))),
    );
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}
