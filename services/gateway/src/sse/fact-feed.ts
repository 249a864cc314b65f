import { FactsMessageSchema, type Fact } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { duplicateRedis, MESSAGE_FIELD, once, type Redis } from '@switchyard/redis';

/** Longest idle wait between two looks at the stream while nobody listens. */
const IDLE_WAIT_MS = 1000;

/** Receives the live facts of one workspace. */
export type FactListener = (fact: Fact) => void;

/**
 * One plain XREAD loop per gateway process over `facts` (no consumer group:
 * every replica sees every fact), fanned out to the SSE sessions of each
 * workspace. Delivery here is a hint: sessions fill any gap from PostgreSQL.
 * While no session listens the feed reads no facts: it notes where the stream
 * is once per idle wait, and the first subscriber makes it read on from there,
 * so nothing published meanwhile is skipped.
 */
export class FactFeed {
  private readonly listeners = new Map<string, Set<FactListener>>();
  private readonly blocking: Redis;
  private closing = false;
  private loop: Promise<void> | undefined;
  /** Resolves the idle wait early (a first subscriber, or close). */
  private wake: (() => void) | undefined;
  /** Counts subscriptions, so that an idle look at the stream knows whether one came meanwhile. */
  private subscriptions = 0;

  constructor(
    redis: Redis,
    private readonly factsKey: string,
    private readonly log: Logger,
  ) {
    this.blocking = duplicateRedis(redis, { maxRetriesPerRequest: null, connectionName: 'gateway:feed' });
  }

  start(): void {
    this.loop = this.run();
  }

  /** Adds a listener for a workspace; returns the function that removes it. */
  subscribe(workspaceId: string, listener: FactListener): () => void {
    let set = this.listeners.get(workspaceId);
    if (!set) this.listeners.set(workspaceId, (set = new Set()));
    set.add(listener);
    this.subscriptions += 1;
    this.wake?.();
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(workspaceId);
    };
  }

  readonly close = once(async () => {
    this.closing = true;
    this.wake?.();
    this.blocking.disconnect();
    await this.loop;
  });

  private async run(): Promise<void> {
    // Replaced by the first idle look (before any subscriber, at start); '0-0' only if a
    // subscriber raced that very look: everything is then read rather than anything missed.
    let lastId = '0-0';
    while (!this.closing) {
      try {
        if (this.listeners.size === 0) {
          lastId = await this.idle(lastId);
          continue;
        }
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

  /**
   * Waits (up to a second) for a first subscriber without reading facts;
   * returns the id to read on from. That is the stream's newest entry as
   * looked up before the wait — unless a subscriber came while it was looked
   * up: then a fact published after the subscription could precede the look
   * (and its session's catch-up from PostgreSQL could precede the fact), so
   * the previous safe place is kept.
   */
  private async idle(safeId: string): Promise<string> {
    const subscriptions = this.subscriptions;
    const [newest] = await this.blocking.xrevrange(this.factsKey, '+', '-', 'COUNT', 1);
    if (this.subscriptions === subscriptions) safeId = newest?.[0] ?? '0-0';
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, IDLE_WAIT_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
      // A subscriber that came during the XREVRANGE found no wake to call.
      if (this.listeners.size > 0 || this.closing) this.wake();
    });
    this.wake = undefined;
    return safeId;
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
