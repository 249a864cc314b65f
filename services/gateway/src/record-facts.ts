import type { AcceptedFact } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { IngestWriter } from './ports';

/**
 * Records facts announcing a change that is already committed. A failure here
 * cannot undo the change, so it is logged rather than thrown: answering 5xx
 * would make the client retry a write that succeeded. The trade-off (a crash
 * between commit and this call loses the notification, never the change) is
 * in docs/decisions/0007-agent-registry.md and 0008-run-ledger.md.
 */
export async function recordFacts(
  ingest: IngestWriter,
  log: Logger,
  facts: readonly AcceptedFact[],
  correlationId: string,
): Promise<void> {
  if (facts.length === 0) return;
  try {
    await ingest.accept(facts.map((fact) => ({ fact, correlationId })));
  } catch (error) {
    log.error(
      { err: error, kinds: facts.map((fact) => fact.kind), subjects: facts.map((fact) => fact.subject) },
      'change committed but its fact was not recorded',
    );
  }
}
