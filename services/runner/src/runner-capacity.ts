import os from 'node:os';
import { getHeapStatistics } from 'node:v8';

/** The most runs one process may be configured to hold in flight (RUNNER_CONCURRENCY). */
export const MAX_RUNNER_CONCURRENCY = 100_000;

/** What one run in flight is budgeted in memory when the capacity is sized from the machine (decision 0053). */
export const RUN_MEMORY_BUDGET_BYTES = 256 * 1024;

/** The bounds of a capacity sized from the machine: never fewer than the old default's tenfold, never more than this. */
const SIZED_MIN = 100;
const SIZED_MAX = 10_000;

/** What the default capacity is sized from. */
export interface MachineMemory {
  /** V8's heap limit of this process (`--max-old-space-size`, else derived from the machine's memory). */
  heapLimitBytes: number;
  totalMemoryBytes: number;
}

/** This process's heap limit and the machine's memory. */
export function machineMemory(): MachineMemory {
  return { heapLimitBytes: getHeapStatistics().heap_size_limit, totalMemoryBytes: os.totalmem() };
}

/**
 * Runs this process holds in flight: RUNNER_CONCURRENCY when set, else half
 * the heap (or a quarter of the machine's memory, whichever is less) at
 * RUN_MEMORY_BUDGET_BYTES a run, between 100 and 10,000. A waiting run costs
 * memory, not CPU, so memory is what bounds it.
 */
export function runnerCapacity(configured: number | undefined, machine: MachineMemory = machineMemory()): number {
  if (configured !== undefined) return configured;
  const budget = Math.min(machine.heapLimitBytes / 2, machine.totalMemoryBytes / 4);
  return Math.max(SIZED_MIN, Math.min(SIZED_MAX, Math.floor(budget / RUN_MEMORY_BUDGET_BYTES)));
}
