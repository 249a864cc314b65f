import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** What a process holds: its resident memory and its open descriptors (sockets among them). */
export interface ProcessFootprint {
  rssBytes: number;
  openFds: number;
  sockets: number;
}

/**
 * Why this exists: the in-flight guarantees (issue 37) bound what a runner
 * holds while thousands of runs wait, which only the OS knows: VmRSS from
 * /proc/<pid>/status, and /proc/<pid>/fd (a socket's link reads
 * `socket:[inode]`). Null where /proc does not have the process.
 */
export function processFootprint(pid: number): ProcessFootprint | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKiB = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
    let openFds = 0;
    let sockets = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      openFds += 1;
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets += 1;
      } catch {
        // Closed between the listing and the read.
      }
    }
    return Number.isFinite(rssKiB) ? { rssBytes: rssKiB * 1024, openFds, sockets } : null;
  } catch {
    return null;
  }
}
