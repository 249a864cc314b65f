import { FactsMessageSchema, type Fact } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { MESSAGE_FIELD, once, type Redis } from '@switchyard/redis';

/** Receives the live facts of one workspace. */
export type FactListener = (fact: Fact) => void;

/**
 * One plain XREAD loop per gateway process over `facts` (no consumer group:
 * every replica sees every fact), fanned out to the SSE sessions of each
 * workspace. Delivery here is a hint: sessions fill any gap from PostgreSQL.
 */
export class FactFeed {
  private readonly listeners = new Map<string, Set<FactListener>>();
  private readonly blocking: Redis;
  private closing = false;
  private loop: Promise<void> | undefined;

  constructor(
    redis: Redis,
    private readonly factsKey: string,
    private readonly log: Logger,
  ) {
    this.blocking = redis.duplicate({ maxRetriesPerRequest: null, connectionName: 'gateway:feed' });
  }

  start(): void {
    this.loop = this.run();
  }

  /** Adds a listener for a workspace; returns the function that removes it. */
  subscribe(workspaceId: string, listener: FactListener): () => void {
    let set = this.listeners.get(workspaceId);
    if (!set) this.listeners.set(workspaceId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(workspaceId);
    };
  }

  readonly close = once(async () => {
    this.closing = true;
    this.blocking.disconnect();
    await this.loop;
  });

  private async run(): Promise<void> {
    let lastId = '$';
    while (!this.closing) {
      try {
        const reply = (await this.blocking.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', this.factsKey, lastId)) as
          | [string, [string, string[]][]][]
          | null;
        for (const [id, fields] of reply?.[0]?.[1] ?? []) {
          lastId = id;
          this.dispatch(fields);
        }
      } catch (error) {
        if (this.closing) break;
        this.log.warn({ err: error }, 'fact feed read failed');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private dispatch(fields: string[]): void {
    // Facts nobody here listens to are not decoded: every fact of every workspace passes by,
    // and the feed's cost should follow its sessions, not the platform's fact rate.
    if (this.listeners.size === 0) return;
    const index = fields.indexOf(MESSAGE_FIELD);
    const raw = index >= 0 ? safeJson(fields[index + 1]) : undefined;
    const workspaceId = (raw as { workspaceId?: unknown } | undefined)?.workspaceId;
    if (typeof workspaceId === 'string' && !this.listeners.has(workspaceId)) return;
    const parsed = FactsMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn('undecodable entry on facts skipped by the feed');
      return;
    }
    for (const listener of this.listeners.get(parsed.data.workspaceId) ?? []) listener(parsed.data.fact);
  }
}

function safeJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
