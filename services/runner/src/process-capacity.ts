/**
 * How many more runs this process may execute (RUNNER_CONCURRENCY): the runs
 * it executes and the slots reserved by its claims in flight count. A claim
 * reserves before it goes out and gives back what it did not use, so two
 * claims of one process never start more than it can execute together.
 */
export class ProcessCapacity {
  private executing = 0;
  private reserved = 0;
  private waiters: Array<() => void> = [];
  private closed = false;
  private full = false;

  /**
   * @param onFull told when the process becomes full (no free slot) and when
   * a slot frees again: the service stops fetching activation jobs meanwhile,
   * so that another runner takes them (back-pressure, decision 0053).
   */
  constructor(
    private readonly size: number,
    private readonly onFull: (full: boolean) => void = () => {},
  ) {}

  /** Slots neither executing nor reserved. */
  free(): number {
    return Math.max(0, this.size - this.executing - this.reserved);
  }

  /** Reserves up to `most` free slots now (maybe 0). */
  reserve(most: number): number {
    const n = Math.min(most, this.free());
    this.reserved += n;
    if (n > 0) this.noteFull();
    return n;
  }

  /**
   * Waits until a slot is free, then reserves up to `most`; 0 once closed
   * (the process stops claiming). `waited`: whether no slot was free at the
   * call (the caller's view of the world may have aged meanwhile).
   */
  async reserveWhenFree(most: number): Promise<{ reserved: number; waited: boolean }> {
    let waited = false;
    while (!this.closed && this.free() === 0) {
      waited = true;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return { reserved: this.closed ? 0 : this.reserve(most), waited };
  }

  /** A claim that reserved `reserved` slots started `started` runs: those execute, the rest are free again. */
  settle(reserved: number, started: number): void {
    this.reserved -= reserved;
    this.executing += started;
    this.wake();
  }

  /** A run stopped executing: its slot becomes a reservation of its ending's claim (up to `most` in all). */
  ending(most: number): number {
    this.executing -= 1;
    const n = this.closed ? 0 : this.reserve(most);
    this.wake();
    return n;
  }

  /** Claims stop: waiting ones get 0. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Tells onFull when the process became full or has a free slot again. */
  private noteFull(): void {
    const full = this.free() === 0;
    if (full === this.full) return;
    this.full = full;
    this.onFull(full);
  }

  private wake(): void {
    this.noteFull();
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
