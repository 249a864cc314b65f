import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/** The hook that counts a service's round trips (loaded with `--import`). */
export const ROUND_TRIPS_HOOK = path.resolve(__dirname, 'round-trips-hook.mjs');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * BENCH_ROUND_TRIPS=1: loads ROUND_TRIPS_HOOK into every service a bench
 * spawns from now on (BENCH_NODE_ARGS). Returns the directory their counts go
 * to (give it to them as ROUND_TRIPS_DIR), or undefined when not asked.
 */
export function enableRoundTrips(): string | undefined {
  if (process.env.BENCH_ROUND_TRIPS !== '1') return undefined;
  process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --import ${ROUND_TRIPS_HOOK}`.trim();
  return `/tmp/switchyard-round-trips-${process.pid}`;
}

/**
 * Why this exists: CPU per run says how much, not on what; the requests a run
 * makes of Redis and PostgreSQL do. Counts them over a window in services
 * started with ROUND_TRIPS_HOOK (which must be loaded: SIGUSR2 ends a
 * process that does not handle it), by service and by command or statement.
 */
export class RoundTripWindow {
  constructor(
    private readonly dir: string,
    private readonly services: Record<string, number>,
  ) {}

  /** Starts counting from zero in every service, once each has said it did. */
  async start(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
    for (const pid of Object.values(this.services)) process.kill(pid, 'SIGUSR2');
    for (const pid of Object.values(this.services)) await appeared(path.join(this.dir, `${pid}.started`));
  }

  /** Each service's counts since start(), by `store: what`. */
  async end(): Promise<Record<string, Record<string, number>>> {
    for (const pid of Object.values(this.services)) process.kill(pid, 'SIGWINCH');
    const counts: Record<string, Record<string, number>> = {};
    for (const [service, pid] of Object.entries(this.services)) {
      const file = path.join(this.dir, `${pid}.json`);
      counts[service] = (await appeared(file)) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
    }
    return counts;
  }
}

/** Whether a file a service writes when signalled is there within 5 s. */
async function appeared(file: string): Promise<boolean> {
  for (let waited = 0; !existsSync(file) && waited < 5000; waited += 20) await sleep(20);
  return existsSync(file);
}

/** Markdown rows: each service's requests per run, by store, then its most frequent ones. */
export function roundTripRows(counts: Record<string, Record<string, number>>, runs: number, top = 6): string[] {
  const rows: string[] = [];
  for (const [service, byWhat] of Object.entries(counts)) {
    const perStore = new Map<string, number>();
    for (const [what, n] of Object.entries(byWhat)) {
      const store = what.split(':')[0]!;
      perStore.set(store, (perStore.get(store) ?? 0) + n);
    }
    const stores = [...perStore].map(([store, n]) => `${store} ${(n / runs).toFixed(1)}`).join(', ');
    const most = Object.entries(byWhat)
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([what, n]) => `${(n / runs).toFixed(2)} ${what.replace(/\|/g, '\\|')}`)
      .join('; ');
    rows.push(`| ${service} | ${stores} | ${most} |`);
  }
  return rows;
}
