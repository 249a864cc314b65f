import type { Logger } from '@switchyard/logging';
import { once } from '@switchyard/redis';

/** What one look fired. */
export interface SchedulerTick {
  /** Schedules that were due and claimed by this process. */
  schedules: number;
  /** Fires recorded (facts written to the outbox). */
  fired: number;
  /** Fires planned but found already recorded for their slot (another process or an earlier try). */
  duplicates: number;
  /** Slots passed over without a fire. */
  skipped: number;
}

/** Claims the due schedules and records their fires, one transaction per batch. */
export interface ScheduleFirer {
  /** Fires what is due at `now`, at most `batch` schedules; what it did. */
  fireDue(now: Date, batch: number): Promise<SchedulerTick>;
}

/** Constructor arguments of Scheduler. */
export interface SchedulerOptions {
  firer: ScheduleFirer;
  log: Logger;
  /** How often it looks for due schedules (SCHEDULE_TICK_MS). */
  tickMs: number;
  /** Schedules claimed per transaction (SCHEDULE_BATCH); a full batch is followed by another at once. */
  batch: number;
  /** The time slots are reckoned by; tests pass their own. @defaultValue the system clock */
  clock?: () => Date;
  /** Called after each look that did something (metrics). */
  onTick?: (tick: SchedulerTick) => void;
}

/**
 * Fires the workspaces' schedules (decision 0048): every `tickMs` it claims
 * the schedules whose next slot has come and records their fires. Any number
 * of processes may run it: a due schedule is claimed with `FOR UPDATE SKIP
 * LOCKED`, its fire and the advance of its next slot commit together, and a
 * slot's fire is unique by its slot key, so each slot fires once whoever
 * looks and however often they die.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private closing = false;

  constructor(private readonly options: SchedulerOptions) {}

  /** Looks every tickMs until closed. */
  start(): void {
    this.schedule(0);
  }

  /** One look: batches until fewer than a full batch was due. */
  async tick(): Promise<SchedulerTick> {
    const total: SchedulerTick = { schedules: 0, fired: 0, duplicates: 0, skipped: 0 };
    const now = (this.options.clock ?? (() => new Date()))();
    for (;;) {
      const tick = await this.options.firer.fireDue(now, this.options.batch);
      total.schedules += tick.schedules;
      total.fired += tick.fired;
      total.duplicates += tick.duplicates;
      total.skipped += tick.skipped;
      if (tick.schedules < this.options.batch || this.closing) break;
    }
    if (total.schedules > 0) this.options.onTick?.(total);
    return total;
  }

  readonly close = once(async () => {
    this.closing = true;
    clearTimeout(this.timer);
    await this.running;
  });

  private schedule(delayMs: number): void {
    if (this.closing) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'scheduler tick failed; retried next tick'))
        .finally(() => this.schedule(this.options.tickMs));
    }, delayMs);
    this.timer.unref();
  }
}
