import type { Logger } from '@switchyard/logging';
import type { BackfillBatches, Wake } from '@switchyard/runs';

/**
 * Starts backfill batches' runs a queue cap at a time (decision 0055): every
 * tick, each running batch gets as many new runs as its agent's queue has
 * room for (BackfillBatches.feed, under the agent's lane lock, so replicas
 * never overfill it), and their lanes are woken.
 */
export class BackfillFeeder {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly batches: Pick<BackfillBatches, 'feed'>,
    private readonly wake: (runs: readonly Wake[]) => Promise<boolean>,
    private readonly log: Logger,
    private readonly tickMs = 250,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.tickMs);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const started = await this.batches.feed();
      if (started.length > 0) await this.wake(started);
    } catch (error) {
      this.log.warn({ err: error }, 'backfill runs not started this tick; the next one retries');
    } finally {
      this.busy = false;
    }
  }
}
