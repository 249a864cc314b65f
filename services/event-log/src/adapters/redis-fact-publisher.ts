import type { FactPublishedMessage } from '@switchyard/contracts';
import { appendMessages, type Redis } from '@switchyard/redis';
import type { FactPublisher } from '../ports';

/** Publishes stored facts on the `facts` stream, trimmed to about `maxLen` entries. */
export class RedisFactPublisher implements FactPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly factsKey: string,
    private readonly maxLen: number,
  ) {}

  async publish(facts: Parameters<FactPublisher['publish']>[0]): Promise<void> {
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
