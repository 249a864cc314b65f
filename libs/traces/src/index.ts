export { buildRunTrace, spanIdOf, type TraceInput } from './run-trace';
export { SqlTraceReader } from './trace-reader';
export { RunTraceExporter, toReadableSpans, tracesUrlOf } from './otlp-export';
