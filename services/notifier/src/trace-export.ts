import { RUN_FACT_KINDS, type RunTrace } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { buildRunTrace, type RunTraceExporter, type SqlTraceReader } from '@switchyard/traces';
import type { NotifierInput } from './notifier';

/** The facts of a run's end: its trace is whole then. A dropped run never ran, so it has none. */
const ENDED: ReadonlySet<string> = new Set([RUN_FACT_KINDS.completed, RUN_FACT_KINDS.failed, RUN_FACT_KINDS.cancelled]);

/** What the trace export needs. */
export interface TraceExportDeps {
  reader: Pick<SqlTraceReader, 'read'>;
  exporter: Pick<RunTraceExporter, 'export'>;
  log: Logger;
}

/**
 * Exports each ended run's trace over OTLP/HTTP (decision 0057), from its own
 * consumer group on `facts`, so that a slow or absent collector holds back
 * neither notifications nor anything else. Failing throws: the consumer
 * delivers the facts again and dead-letters them after its attempts. A
 * repeated export sends the same trace and span ids.
 */
export class TraceExport {
  constructor(private readonly deps: TraceExportDeps) {}

  async handle(inputs: readonly NotifierInput[]): Promise<void> {
    const traces: RunTrace[] = [];
    for (const { fact, workspaceId } of inputs) {
      if (!ENDED.has(fact.kind) || fact.subject.type !== 'run') continue;
      const input = await this.deps.reader.read(workspaceId, fact.subject.id);
      if (input) traces.push(buildRunTrace(input));
    }
    for (const trace of traces) await this.deps.exporter.export(trace);
    if (traces.length > 0) this.deps.log.debug({ traces: traces.length }, 'run traces exported');
  }
}
