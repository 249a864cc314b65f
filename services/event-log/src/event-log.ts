import type { IngestMessage } from '@switchyard/contracts';
import type { FactRecorder } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import type { HandleOutcome, StreamEntry } from '@switchyard/redis';
import type { IdempotencyClaims } from './ports';

/** Counters the event-log reports; main.ts binds them to Prometheus. */
export interface EventLogMetrics {
  stored(count: number): void;
  duplicates(count: number): void;
}

/** Constructor arguments of EventLog. */
export interface EventLogOptions {
  /** Stores a batch and publishes what is stored (the outbox relay's sink too). */
  recorder: Pick<FactRecorder, 'record'>;
  /** Where the gateway claimed the facts' idempotency keys. */
  claims: IdempotencyClaims;
  log: Logger;
  metrics?: EventLogMetrics;
}

/**
 * The writer of producers' facts: persists a batch of ingest entries, then
 * publishes every stored fact on `facts` (FactRecorder, the outbox relay's
 * path too). Publishing happens after the commit, so a crash in between
 * leaves the entries un-acked; their redelivery finds the rows by id and
 * publishes them again (consumers dedupe by fact id). A fact
 * the store refuses for good (its workspace does not exist, PostgreSQL will
 * not store a value of it) is returned as refused: the consumer records it as
 * a dead letter at once, then `deadLettered` frees its idempotency key.
 */
export class EventLog {
  constructor(private readonly options: EventLogOptions) {}

  /** Handles one batch from `ingest`; resolves when it is stored and published. */
  async handle(entries: StreamEntry<IngestMessage>[]): Promise<HandleOutcome> {
    const outcomes = await this.options.recorder.record(entries.map(({ message }) => ({ fact: message.fact, correlationId: message.correlationId })));
    let duplicates = 0;
    let stored = 0;
    const refused: HandleOutcome['refused'] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'inserted') stored += 1;
      else if (outcome.status === 'duplicate') duplicates += 1;
      else if (outcome.status === 'refused' || outcome.status === 'unknown_workspace') {
        const error = outcome.status === 'refused' ? outcome.reason : 'fact names a workspace that does not exist';
        refused.push({ id: entries[index]!.id, error });
      }
    }
    this.options.metrics?.stored(stored);
    this.options.metrics?.duplicates(duplicates);
    return { refused };
  }

  /**
   * A fact that went to the dead letters (refused, or past its deliveries):
   * its idempotency key no longer answers with an id that will never exist,
   * so a corrected retry is accepted as a new fact.
   */
  async deadLettered(entry: StreamEntry<IngestMessage>): Promise<void> {
    const released = await this.options.claims.release([entry.message.fact]);
    if (released > 0) this.options.log.info({ factId: entry.message.fact.id }, 'idempotency key of a dead-lettered fact released');
  }
}
