import type { Fact, FactPublishedMessage } from '@switchyard/contracts';
import type { Redis } from './connection';
import { appendMessages } from './stream-producer';

/**
 * Publishes stored facts on the `facts` stream, in order, trimmed to about
 * `maxLen` entries (PostgreSQL keeps them all). Resolves once Redis has them.
 */
export class RedisFactPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly factsKey: string,
    private readonly maxLen: number,
  ) {}

  async publish(facts: ReadonlyArray<{ fact: Fact; workspaceId: string; correlationId: string }>): Promise<void> {
    if (facts.length === 0) return;
    const now = new Date().toISOString();
    const messages: FactPublishedMessage[] = facts.map(({ fact, workspaceId, correlationId }) => ({
      id: fact.id,
      type: 'fact_published',
      occurredAt: now,
      correlationId,
      schemaVersion: 1,
      workspaceId,
      fact,
    }));
    await appendMessages(this.redis, this.factsKey, messages, { maxLen: this.maxLen });
  }
}
