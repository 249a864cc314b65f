import { readdirSync, readFileSync } from 'node:fs';

/**
 * How many times a process's threads went to sleep and were woken (voluntary
 * context switches, all threads, from /proc); null where /proc does not have
 * it. On a virtual machine a wake-up from idle costs more CPU than the work of
 * a small message, and the count does not depend on how loaded the machine
 * is: what an idle-cost test and bench:match's wake-ups per run count.
 */
export function processWakeups(pid: number): number | null {
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      total += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
    return total;
  } catch {
    return null;
  }
}
