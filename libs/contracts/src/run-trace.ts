import { z } from 'zod';

/*
 * A run's trace (decision 0057): its transcript, approvals and waits as a
 * tree of spans — the run, and under it its model calls, tool calls,
 * approvals, waits and notices. The same tree is served as JSON by
 * `GET /runs/{id}/trace` and exported over OTLP/HTTP, with the same ids.
 */

/** What a span stands for. */
export const TraceSpanKindSchema = z.enum(['run', 'model_call', 'tool_call', 'approval', 'wait', 'notice']);
export type TraceSpanKind = z.infer<typeof TraceSpanKindSchema>;

/** A span's outcome, as OpenTelemetry's status codes say it. */
export const TraceSpanStatusSchema = z.enum(['unset', 'ok', 'error']);

/** Span attributes: flat, primitive values (OpenTelemetry's attribute model). */
export const TraceAttributesSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
export type TraceAttributes = z.infer<typeof TraceAttributesSchema>;

/** Spans of one trace at most: a run past it keeps its first spans and says `truncated`. */
export const MAX_TRACE_SPANS = 2_000;
/** Characters of a tool result or error kept on its span. */
export const TRACE_TEXT_CHARS = 2_000;

const SpanIdSchema = z.string().regex(/^[0-9a-f]{16}$/);

/** One span; `endTime` null while it is still open (a running run, a pending approval). */
export const TraceSpanSchema = z.strictObject({
  spanId: SpanIdSchema,
  parentSpanId: SpanIdSchema.nullable(),
  kind: TraceSpanKindSchema,
  name: z.string(),
  startTime: z.iso.datetime(),
  endTime: z.iso.datetime().nullable(),
  status: TraceSpanStatusSchema,
  attributes: TraceAttributesSchema,
  get children() {
    return z.array(TraceSpanSchema);
  },
});
export type TraceSpan = z.infer<typeof TraceSpanSchema>;

/** `GET /v1/workspaces/{ws}/runs/{id}/trace`: the run span, its children in time order. */
export const RunTraceSchema = z.strictObject({
  /** The run id's 32 hex digits: a run's trace id is its id. */
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  runId: z.uuid(),
  root: TraceSpanSchema,
  /** The run had more than MAX_TRACE_SPANS spans; the later ones are left out. */
  truncated: z.boolean(),
});
export type RunTrace = z.infer<typeof RunTraceSchema>;
