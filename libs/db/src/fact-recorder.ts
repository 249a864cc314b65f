import type { AcceptedFact, Fact } from '@switchyard/contracts';
import type { AppendOutcome, FactStore } from './sql-fact-store';

/** Where stored facts are announced: the `facts` stream (RedisFactPublisher of @switchyard/redis). */
export interface FactPublisher {
  /** Publishes facts in order; resolves once they are published. */
  publish(facts: ReadonlyArray<{ fact: Fact; workspaceId: string; correlationId: string }>): Promise<void>;
}

/** A fact to record, with the correlation id it travels with. */
export interface FactToRecord {
  fact: AcceptedFact;
  correlationId: string;
}

/**
 * Stores facts, then publishes each one that is stored — now, or before (a
 * repeat after a crash between the two publishes it again; consumers dedupe
 * by id). What the event-log does with a batch of `ingest` and the outbox
 * relay with a batch of outbox rows, so a fact is stored and announced one
 * way whoever recorded it.
 */
export class FactRecorder {
  constructor(
    private readonly store: FactStore,
    private readonly publisher: FactPublisher,
  ) {}

  /** One outcome per item, in order, once the stored ones are published. */
  async record(items: readonly FactToRecord[]): Promise<AppendOutcome[]> {
    const outcomes = await this.store.append(items.map((item) => item.fact));
    await this.publisher.publish(
      outcomes.flatMap((outcome, index) =>
        outcome.status === 'inserted' || outcome.status === 'existing'
          ? [{ fact: outcome.fact, workspaceId: outcome.workspaceId, correlationId: items[index]!.correlationId }]
          : [],
      ),
    );
    return outcomes;
  }
}
