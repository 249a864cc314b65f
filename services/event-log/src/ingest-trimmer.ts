import type { Logger } from '@switchyard/logging';
import { once, trimAcknowledged, type Redis } from '@switchyard/redis';

/**
 * Keeps `ingest` bounded: every interval, trims it below the oldest entry any
 * group still holds pending or has not been delivered. Entries of `ingest`
 * exist nowhere else until persisted, so MAXLEN (which also drops pending
 * entries) is never used on it.
 */
export class IngestTrimmer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly ingestKey: string,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.trim();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** One trim pass; errors are logged, never thrown (the next pass retries). */
  async trim(): Promise<void> {
    try {
      const removed = await trimAcknowledged(this.redis, this.ingestKey);
      if (removed > 0) this.log.debug({ removed }, 'ingest trimmed');
    } catch (error) {
      this.log.warn({ err: error }, 'ingest trim failed');
    }
  }

  readonly close = once(async () => {
    clearInterval(this.timer);
    await this.running;
  });
}
