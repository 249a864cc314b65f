import type { Redis } from './connection';
import { toKey } from './keys';

/** The channel a run's news goes on: `{prefix}:run-news:{runId}`. */
export function runNewsChannel(prefix: string, runId: string): string {
  return toKey(prefix, 'run-news', runId);
}

/**
 * Says "this run recorded something" (decision 0056): the runner publishes
 * after a followed run's transcript flushes and its ending, so
 * whoever follows the run reads it now instead of at its next poll. The
 * message carries nothing: the transcript and the run row stay the truth,
 * a lost message only delays the reader to its safety poll.
 */
export class RunNewsPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Fire and forget: the run never waits on its followers. */
  publish(runId: string): void {
    this.redis.publish(runNewsChannel(this.prefix, runId), '1').catch(this.onError);
  }
}

/**
 * The gateway's side: one subscriber connection (a connection in subscriber
 * mode can do nothing else) shared by every follower, a channel per run
 * followed, dropped when its last follower leaves.
 */
export class RunNewsSubscriber {
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(
    /** A connection of its own (duplicateRedis): it enters subscriber mode. */
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.on('message', (channel: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener();
    });
  }

  /** Resolves once subscribed (news published after it is heard); returns the unsubscribe. */
  async subscribe(runId: string, listener: () => void): Promise<() => void> {
    const channel = runNewsChannel(this.prefix, runId);
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    await this.redis.subscribe(channel);
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      this.redis.unsubscribe(channel).catch(() => undefined);
    };
  }
}
