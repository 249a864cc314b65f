import type { Logger } from '@switchyard/logging';
import type { ResumedWait, SqlWaitBook, WorkspaceFact } from '@switchyard/runs';

/** Options of WaitResumer. */
export interface WaitResumerOptions {
  book: Pick<SqlWaitBook, 'load' | 'parked' | 'matchFacts' | 'expireDue' | 'sweep'>;
  /** Wakes a resumed run's lane; a lost wake is left to the runner's sweep (RunWaker.wakeOrLeaveToSweep). */
  wake(runs: readonly ResumedWait[], key: string): Promise<boolean>;
  log: Logger;
  /** How often due waits are timed out (WAIT_TICK_MS). @defaultValue 250 */
  tickMs?: number;
  /** How often pending waits are checked against stored facts (what a lost stream entry hid). @defaultValue 5000 */
  sweepMs?: number;
}

/** Waits resolved per tick or sweep at most: the rest are the next one's. */
const PER_TICK = 200;

/**
 * The matcher's side of `wait_for_event` (decision 0055): every batch of
 * facts resolves the waits it matches (after the facts were committed — what
 * the park's share lock relies on) among the waits the book knows, read again
 * for a workspace once a park there is announced (`parked`); a timer times out
 * the waits past their deadline, and a slower sweep looks in PostgreSQL for a
 * fact the stream lost. Every resolution is conditional, so replicas, replays
 * and the timer may meet on one wait: it resolves once, and its run resumes once.
 */
export class WaitResumer {
  private readonly timers: NodeJS.Timeout[] = [];
  private busy = false;

  constructor(private readonly options: WaitResumerOptions) {}

  /** Reads the pending waits; called after the matcher read its seqs (see Matcher.load). */
  async load(): Promise<void> {
    await this.options.book.load();
  }

  /** A run of the workspace parked on a wait (its `agent.run.awaiting_event`, in fact order). */
  parked(workspaceId: string): void {
    this.options.book.parked(workspaceId);
  }

  /** Resolves the waits these facts match and wakes their runs. */
  async handle(facts: readonly WorkspaceFact[]): Promise<void> {
    await this.wakeAll(await this.options.book.matchFacts(facts));
  }

  start(): void {
    this.timers.push(setInterval(() => void this.once(() => this.options.book.expireDue(PER_TICK)), this.options.tickMs ?? 250));
    this.timers.push(setInterval(() => void this.once(() => this.options.book.sweep(PER_TICK)), this.options.sweepMs ?? 5_000));
    // A restarted matcher times out what fell due while it was down at once.
    void this.once(() => this.options.book.expireDue(PER_TICK));
  }

  close(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  /** One tick at a time: a slow database never piles ticks up. */
  private async once(work: () => Promise<ResumedWait[]>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.wakeAll(await work());
    } catch (error) {
      this.options.log.warn({ err: error }, 'waits not resolved this tick; the next one retries');
    } finally {
      this.busy = false;
    }
  }

  private async wakeAll(resumed: readonly ResumedWait[]): Promise<void> {
    for (const run of resumed) await this.options.wake([run], run.waitId);
  }
}
