import { NonRetriableError, type IngestMessage } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { StreamEntry } from '@switchyard/redis';
import type { FactPublisher, FactStore } from './ports';

/** Counters the event-log reports; main.ts binds them to Prometheus. */
export interface EventLogMetrics {
  stored(count: number): void;
  duplicates(count: number): void;
}

/** Constructor arguments of EventLog. */
export interface EventLogOptions {
  store: FactStore;
  publisher: FactPublisher;
  log: Logger;
  metrics?: EventLogMetrics;
}

/**
 * The one writer of facts: persists a batch of ingest entries, then publishes
 * every stored fact on `facts`. Publishing happens after the commit, so a
 * crash in between leaves the entries un-acked; their redelivery finds the
 * rows by id and publishes them again (consumers dedupe by fact id).
 */
export class EventLog {
  constructor(private readonly options: EventLogOptions) {}

  /** Handles one batch from `ingest`; resolves when it is stored and published. */
  async handle(entries: StreamEntry<IngestMessage>[]): Promise<void> {
    const outcomes = await this.options.store.append(entries.map((entry) => entry.message.fact));
    const toPublish = [];
    let duplicates = 0;
    let stored = 0;
    const rejected: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const message = entries[index]!.message;
      if (outcome.status === 'inserted' || outcome.status === 'existing') {
        if (outcome.status === 'inserted') stored += 1;
        toPublish.push({ fact: outcome.fact, workspaceId: outcome.workspaceId, correlationId: message.correlationId });
      } else if (outcome.status === 'duplicate') {
        duplicates += 1;
      } else {
        rejected.push(message.fact.id);
      }
    }
    await this.options.publisher.publish(toPublish);
    this.options.metrics?.stored(stored);
    this.options.metrics?.duplicates(duplicates);
    if (rejected.length > 0) {
      // The rest of the batch is stored and published; the consumer retries entries
      // one by one and sends these to the dead-letter stream.
      throw new NonRetriableError('fact names a workspace that does not exist', { ids: rejected });
    }
  }
}
