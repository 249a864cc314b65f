import { readFileSync } from 'node:fs';
import { processWakeups } from '@switchyard/testing';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) of a process in ms, from /proc; null where /proc does not have it. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * Why this exists: on a machine whose cores every process shares, a latency
 * figure means little without where the CPU went. Samples the CPU time of
 * named groups of processes over a window and gives each group's share of
 * one core (100 % = one core busy for the whole window).
 */
export class CpuWindow {
  private readonly startedAt = performance.now();
  private readonly before = new Map<number, number>();
  private readonly wokenBefore = new Map<number, number>();
  private woken: Record<string, number> = {};

  constructor(private readonly groups: () => Promise<Record<string, number[]>>) {}

  async start(): Promise<this> {
    for (const pids of Object.values(await this.groups())) {
      for (const pid of pids) {
        this.before.set(pid, processCpuMs(pid) ?? 0);
        this.wokenBefore.set(pid, processWakeups(pid) ?? 0);
      }
    }
    return this;
  }

  /** Each group's CPU over the window, in % of one core; a process started in the window counts from 0. */
  async end(): Promise<Record<string, number>> {
    const elapsedMs = performance.now() - this.startedAt;
    const shares: Record<string, number> = {};
    this.woken = {};
    for (const [group, pids] of Object.entries(await this.groups())) {
      let ms = 0;
      let woken = 0;
      for (const pid of pids) {
        ms += Math.max(0, (processCpuMs(pid) ?? 0) - (this.before.get(pid) ?? 0));
        woken += Math.max(0, (processWakeups(pid) ?? 0) - (this.wokenBefore.get(pid) ?? 0));
      }
      shares[group] = (100 * ms) / elapsedMs;
      this.woken[group] = woken;
    }
    return shares;
  }

  /** Each group's wake-ups (voluntary context switches) over the window, once `end` was called. */
  wakeups(): Record<string, number> {
    return { ...this.woken };
  }
}
