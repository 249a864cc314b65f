import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FILE = path.resolve(__dirname, '../../BENCHMARKS.md');

/** One line naming the machine: CPU model, cores, memory, Node, Redis and PostgreSQL versions. */
export function machineLine(extra: string): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const mem = Math.round(os.totalmem() / 2 ** 30);
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    // Not a git checkout.
  }
  return `${cpu}, ${os.cpus().length} cores, ${mem} GiB, Node ${process.version}, ${extra}, commit ${commit}`;
}

/**
 * Replaces the section between `<!-- name:start -->` and `<!-- name:end -->`
 * in BENCHMARKS.md (appending it the first time), so each benchmark keeps
 * its latest results without touching the others'.
 */
export function writeSection(name: string, body: string): void {
  // BENCH_WRITE=0: a run for comparison (pairs.ts, a diagnosis) leaves the file as it is.
  if (process.env.BENCH_WRITE === '0') return;
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const header = '# Benchmarks\n\nEach section is rewritten by its `npm run bench:*` command. Figures are from one run on the machine named; the machines are shared and noisy, so read the ratios to the baselines measured in the same run rather than the absolute numbers.\n';
  let text = existsSync(FILE) ? readFileSync(FILE, 'utf8') : header;
  const block = `${start}\n${body.trim()}\n${end}`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  text = from >= 0 && to > from ? text.slice(0, from) + block + text.slice(to + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(FILE, text);
}
