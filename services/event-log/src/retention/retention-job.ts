import { RETENTION_DEFAULTS } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { once } from '@switchyard/redis';
import { utcDay } from './partition-weeks';
import type { PartitionDrop, RetentionReckoning, RetentionStore } from './retention-ports';

/** What one tick did, by kind of thing purged (rows, or partitions made and dropped). */
export interface RetentionTally {
  partitionsMade: number;
  partitionsDropped: number;
  /** Partitions a drop found in use past the lock timeout, or waiting for their keys to be trimmed. */
  partitionsDeferred: number;
  horizonsMoved: number;
  keys: number;
  factRows: number;
  activationSkips: number;
  tries: number;
  transcriptEntries: number;
}

/** How much one tick may do (decision 0041: the job is bounded). */
export interface RetentionBounds {
  /** Rows one delete statement removes at most (RETENTION_BATCH). */
  batch: number;
  /** Delete statements per kind of row per tick, and partition drops per tick (RETENTION_MAX_BATCHES). */
  maxBatches: number;
  /** UTC days ahead whose (week) partitions exist after a tick (RETENTION_PARTITIONS_AHEAD). */
  partitionsAhead: number;
  /** How long a partition's creation or drop waits for platform_events before it gives up until the next tick (RETENTION_LOCK_TIMEOUT_MS). */
  lockTimeoutMs: number;
}

/** Constructor arguments of RetentionJob. */
export interface RetentionJobOptions {
  store: RetentionStore;
  log: Logger;
  bounds: RetentionBounds;
  /** How often it ticks (RETENTION_INTERVAL_MS). */
  intervalMs: number;
  /** Whether this process acts now: the event-log's outbox relay leader, so one replica purges at a time. @defaultValue always */
  isLeader?: () => boolean;
  /** The time horizons are reckoned by. @defaultValue the system clock */
  clock?: () => Date;
  /** Receives each tick's tally (the service counts it in Prometheus). */
  onTick?: (tally: RetentionTally) => void;
}

/**
 * Enforces each workspace's retention (issue 36 §4, decision 0041). Each tick, on the leading
 * event-log only, in an order that is safe to stop anywhere (a crash, a restart, a lost lead):
 *   1. makes the week partitions of platform_events holding the next `partitionsAhead` days;
 *   2. raises each workspace's purge mark (fact_horizons) — before anything is deleted, so a cursor
 *      behind it is answered 410 rather than silently skipping;
 *   3. trims the idempotency keys at or below the marks (a key never outlives its fact);
 *   4. drops the week partitions all of whose facts are at or below their workspace's mark;
 *   5. deletes by rows the facts at or below a mark that sit in a partition another workspace
 *      still keeps (a shorter horizon), or in the default partition — only once no droppable
 *      partition waits, so rows a drop will take are never deleted one by one;
 *   6. deletes activation skips, tries and idle sessions' transcripts past their horizons.
 * Every delete is a statement of at most `batch` rows, at most `maxBatches` of them per kind.
 */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private closing = false;

  constructor(private readonly options: RetentionJobOptions) {}

  /** Ticks at once, then every intervalMs until closed. */
  start(): void {
    this.schedule(0);
  }

  /** One tick, if this process leads; what it did. */
  async tick(): Promise<RetentionTally> {
    const tally: RetentionTally = { partitionsMade: 0, partitionsDropped: 0, partitionsDeferred: 0, horizonsMoved: 0, keys: 0, factRows: 0, activationSkips: 0, tries: 0, transcriptEntries: 0 };
    if (this.options.isLeader && !this.options.isLeader()) return tally;
    const { store, bounds } = this.options;
    const reckoning: RetentionReckoning = { now: (this.options.clock ?? (() => new Date()))(), defaults: { ...RETENTION_DEFAULTS } };
    const days = Array.from({ length: bounds.partitionsAhead + 1 }, (_, i) => utcDay(reckoning.now, i));
    try {
      tally.partitionsMade = await store.ensurePartitions(days, bounds.lockTimeoutMs);
    } catch (error) {
      // A partition not made yet costs nothing but rows in the default partition (moved when it is made): purge on.
      this.options.log.warn({ err: error }, 'retention could not make the partitions ahead; tried again at the next tick');
    }
    tally.horizonsMoved = await store.advanceHorizons(reckoning);
    tally.keys = await this.batches(() => store.trimKeys(bounds.batch));
    await this.dropPartitions(reckoning, tally);
    if (tally.partitionsDeferred === 0) tally.factRows = await this.batches(() => store.deleteFactRows(bounds.batch));
    tally.activationSkips = await this.batches(() => store.deleteActivationSkips(reckoning, bounds.batch));
    tally.tries = await this.batches(() => store.deleteTries(reckoning, bounds.batch));
    tally.transcriptEntries = await this.batches(() => store.deleteTranscripts(reckoning, bounds.batch));
    this.options.onTick?.(tally);
    if (tally.partitionsDropped + tally.keys + tally.factRows + tally.activationSkips + tally.tries + tally.transcriptEntries > 0) {
      this.options.log.info({ ...tally }, 'retention purged');
    }
    return tally;
  }

  readonly close = once(async () => {
    this.closing = true;
    clearTimeout(this.timer);
    await this.running;
  });

  /**
   * Tries each candidate, oldest first: a kept one costs a check without a lock; at most
   * maxBatches are dropped. Any left untried, found busy, or waiting for keys counts as deferred,
   * which holds the row deletes back: they must not take a partition's rows one by one.
   */
  private async dropPartitions(reckoning: RetentionReckoning, tally: RetentionTally): Promise<void> {
    const { store, bounds } = this.options;
    const candidates = await store.expiredPartitionCandidates(reckoning);
    for (const [index, name] of candidates.entries()) {
      if (tally.partitionsDropped >= bounds.maxBatches || this.closing) {
        tally.partitionsDeferred += candidates.length - index;
        return;
      }
      const outcome: PartitionDrop = await store.dropPartition(name, bounds.lockTimeoutMs);
      if (outcome === 'dropped') tally.partitionsDropped++;
      else if (outcome === 'busy') tally.partitionsDeferred++;
      else if (outcome === 'keys_pending') {
        // Keys still to trim hold every partition back alike: the next tick goes on.
        tally.partitionsDeferred += candidates.length - index;
        return;
      }
    }
  }

  /** Runs a bounded delete until it deletes less than a batch, at most maxBatches times; the rows deleted. */
  private async batches(step: () => Promise<number>): Promise<number> {
    let total = 0;
    for (let i = 0; i < this.options.bounds.maxBatches && !this.closing; i++) {
      const deleted = await step();
      total += deleted;
      if (deleted < this.options.bounds.batch) break;
    }
    return total;
  }

  private schedule(delayMs: number): void {
    if (this.closing) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'retention tick failed; tried again at the next'))
        .finally(() => this.schedule(this.options.intervalMs));
    }, delayMs);
    this.timer.unref();
  }
}
