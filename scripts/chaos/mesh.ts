import { spawnService, type ServiceProcess } from '@switchyard/testing';

/** A service process of the mesh, by its place: `gateway`, `event-log:0`, `runner:1`, … */
export type ServiceSlot = 'gateway' | `${'event-log' | 'matcher' | 'runner'}:${0 | 1}`;

/** A process that exited without the harness killing it. */
export interface UnexpectedExit {
  slot: ServiceSlot;
  at: number;
  exit: number | NodeJS.Signals | null;
  /** The end of what it wrote. */
  tail: string;
}

/** Crashes of one slot after which it is left down. */
const MAX_RESTARTS_AFTER_CRASH = 5;

const SLOTS: readonly ServiceSlot[] = ['event-log:0', 'event-log:1', 'gateway', 'matcher:0', 'matcher:1', 'runner:0', 'runner:1'];

const READY: Record<string, RegExp> = { gateway: /gateway listening/, matcher: /matcher started/, runner: /runner started/, 'event-log': /"msg":"[^"]*(started|listening)/ };

/**
 * The platform as separate processes: a gateway and two replicas each of
 * the event-log, the matcher and the runner, each the real `main.ts`. A
 * process killed by the harness is started again by `restart`; one that exits
 * on its own is recorded (a crash is a finding) and started again, so that
 * the load goes on.
 */
export class Mesh {
  private readonly procs = new Map<ServiceSlot, ServiceProcess>();
  private readonly killing = new Set<ServiceSlot>();
  private generation = 0;
  private closed = false;
  /** Exits the harness did not cause. */
  readonly unexpectedExits: UnexpectedExit[] = [];

  constructor(private readonly env: Record<string, string>) {}

  /** Starts every process (the event-logs first, so the gateway's first facts are read at once). */
  async start(): Promise<void> {
    for (const slot of SLOTS) await this.launch(slot);
  }

  /** SIGKILLs the process in `slot`, waits for its exit, and starts a fresh one. */
  async restart(slot: ServiceSlot): Promise<void> {
    if (this.closed) return;
    const proc = this.procs.get(slot);
    this.killing.add(slot);
    try {
      await proc?.stop('SIGKILL');
    } finally {
      this.killing.delete(slot);
    }
    await this.launch(slot);
  }

  /** Stops every process with SIGTERM (SIGKILL after `graceMs`). */
  async stop(graceMs = 10_000): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.procs.values()].map(async (proc) => {
        const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
        await proc.stop('SIGTERM');
        clearTimeout(timer);
      }),
    );
  }

  /** SIGKILLs every process at once (the harness itself is going away). */
  killAll(): void {
    this.closed = true;
    for (const proc of this.procs.values()) proc.child.kill('SIGKILL');
  }

  private async launch(slot: ServiceSlot): Promise<void> {
    const [service, replica] = slot.split(':') as [string, string | undefined];
    // A new consumer name per process, as a new host or pid would have: a dead one's entries are claimed.
    const name = `${service}-${replica ?? 0}-g${this.generation++}`;
    const env = { ...this.env, EVENT_LOG_CONSUMER: name, MATCHER_CONSUMER: name, RUNNER_NAME: name };
    const proc = await spawnService(service, env, { readyPattern: READY[service], output: 'file', timeoutMs: 60_000 });
    this.procs.set(slot, proc);
    // Stopped while it started: it must not outlive the harness.
    if (this.closed) proc.child.kill('SIGKILL');
    void proc.exited.then((exit) => this.exitedOnItsOwn(slot, proc, exit));
  }

  private exitedOnItsOwn(slot: ServiceSlot, proc: ServiceProcess, exit: number | NodeJS.Signals | null): void {
    if (this.closed || this.killing.has(slot) || this.procs.get(slot) !== proc) return;
    this.unexpectedExits.push({ slot, at: Date.now(), exit, tail: proc.output().slice(-2000) });
    // A service that keeps crashing is not started forever: the report shows its exits.
    if (this.unexpectedExits.filter((e) => e.slot === slot).length > MAX_RESTARTS_AFTER_CRASH) return;
    this.launch(slot).catch((error: unknown) => this.unexpectedExits.push({ slot, at: Date.now(), exit: null, tail: `could not restart: ${String(error)}` }));
  }
}
