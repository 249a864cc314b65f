/**
 * Why this exists: on a shared, loaded machine one bench run says little;
 * the same bench run alternately on a baseline tree and on this tree, in
 * pairs, says how the two compare under the same load. Usage:
 *
 *   node --import tsx bench/lib/pairs.ts <loop|match|teams|approvals|ui> <baseline root> [pairs]
 *
 * `BENCH_PAIRS_PAUSE_S` (default 20) idles the machine before each run: a run
 * started on the last one's residue (its processes exiting, PostgreSQL writing
 * its database out) is slower, whichever tree it is.
 *
 * The baseline root is another checkout of the repo (its own services and
 * libs, `node_modules` resolving `@switchyard/*` to them). Each run gets the
 * caller's environment with BENCH_WRITE=0; its output is kept in
 * `$BENCH_PAIRS_LOG` (default /tmp/bench-pairs-<bench>-<time>.log) and the
 * figures each pair compares are printed as a Markdown table, with the
 * 1-minute load average when each run started. The order alternates (the
 * baseline first in odd pairs, this tree first in even ones): a pair's second
 * run can be slower whatever its tree.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Figures = Record<string, number>;

const HERE = path.resolve(__dirname, '../..');
const PAUSE_S = Number(process.env.BENCH_PAIRS_PAUSE_S ?? 20);

/** The figures of a bench's printed section that the pairs compare. */
const PARSERS: Record<string, (out: string) => Figures> = {
  loop: (out) => {
    const row = (label: RegExp) => {
      const match = new RegExp(`\\| ${label.source}[^\\n]*\\| ([\\d.,]+) ms \\| ([\\d.,]+) ms \\|`).exec(out);
      return match ? [num(match[1]!), num(match[2]!)] : [NaN, NaN];
    };
    const [platformP50, platformP99] = row(/AgentLoop \(platform\)/);
    const [baselineP50, baselineP99] = row(/baseline: bare loop/);
    const setup = /Run set-up[^\n]*?p50 ([\d.,]+) ms/.exec(out)?.[1];
    return { platformP50: platformP50!, platformP99: platformP99!, baselineP50: baselineP50!, baselineP99: baselineP99!, overheadP50: platformP50! - baselineP50!, setupP50: setup ? num(setup) : NaN };
  },
  match: (out) => {
    const figures: Figures = {};
    for (const match of out.matchAll(/^\| ([^|]+) \| fact published on `facts` → run started[^\n]*\| [\d,]+ \| ([\d.,]+) ms \| ([\d.,]+) ms \|$/gm)) {
      figures[`${match[1]!.trim()} p50`] = num(match[2]!);
      figures[`${match[1]!.trim()} p99`] = num(match[3]!);
    }
    const header = /^\| rate \| (.+) \| total \| platform CPU per activated run[^\n]*$/m.exec(out);
    const groups = header ? header[1]!.split(' | ') : [];
    for (const match of out.matchAll(/^\| ([^|]+?) \| ((?:[\d.,]+ % \| )+)([\d.,]+) % \| ([\d.]+) ms \(([\d,]+)\) \|$/gm)) {
      const label = match[1]!.trim();
      match[2]!.split(' | ').filter(Boolean).forEach((value, i) => (figures[`${label} CPU ${groups[i] ?? i}`] = num(value)));
      figures[`${label} CPU per run`] = Number(match[4]);
      figures[`${label} runs`] = num(match[5]!);
    }
    const wakeups = out.slice(out.indexOf('Wake-ups per activated run'));
    for (const match of wakeups.matchAll(/^\| ([^|]+?) \| (?:[\d.]+ \| )+([\d.]+) \|$/gm)) figures[`${match[1]!.trim()} wake-ups per run`] = Number(match[2]);
    return figures;
  },
  teams: (out) => {
    const row = (label: string) => {
      const match = new RegExp(`^\\| ${label}[^\\n]*?\\| [\\d,]+ \\| ([\\d.,]+) ms \\| ([\\d.,]+) ms \\|$`, 'm').exec(out);
      return match ? [num(match[1]!), num(match[2]!)] : [NaN, NaN];
    };
    const [wakeP50, wakeP99] = row('\\*\\*the first model call of the woken turn\\*\\*');
    const [answerP50, answerP99] = row('… its 202 answer');
    const [busyP50, busyP99] = row('the next model call that holds it');
    // The idle phase's CPU line comes first.
    const cpu = /CPU in the phase \(of one core\): gateway ([\d.]+) %, runner ([\d.]+) %, event-log ([\d.]+) %/.exec(out);
    return {
      wakeP50: wakeP50!, wakeP99: wakeP99!, answerP50: answerP50!, answerP99: answerP99!, busyP50: busyP50!, busyP99: busyP99!,
      idleGatewayCpu: cpu ? Number(cpu[1]) : NaN, idleRunnerCpu: cpu ? Number(cpu[2]) : NaN, idleEventLogCpu: cpu ? Number(cpu[3]) : NaN,
    };
  },
  approvals: (out) => {
    const figures: Figures = {};
    const parked = /the last ([\d,]+) ms after they were queued/.exec(out);
    figures.lastParkMs = parked ? num(parked[1]!) : NaN;
    const cpu = /CPU per parked run while they parked: ([^\n]+)\./.exec(out)?.[1] ?? '';
    let total = 0;
    for (const match of cpu.matchAll(/((?:[^,(]|\([^)]*\))+?) ([\d.]+) ms/g)) {
      figures[`${match[1]!.trim()} CPU per park`] = Number(match[2]);
      total += Number(match[2]);
    }
    figures['CPU per park'] = cpu ? total : NaN;
    const resume = /decision → call p50 (\d+) ms, → claim p50 (\d+) ms, baseline p50 (\d+) ms/.exec(out);
    figures.callP50 = resume ? Number(resume[1]) : NaN;
    figures.claimP50 = resume ? Number(resume[2]) : NaN;
    figures.baselineP50 = resume ? Number(resume[3]) : NaN;
    return figures;
  },
  ui: (out) => {
    const renders = /first render \(rows\): ([^\n]+) ms/.exec(out)?.[1]?.split(', ').map(num) ?? [];
    const sorted = [...renders].sort((a, b) => a - b);
    const update = /update p50\/p95\/p99 ([\d.]+)\/([\d.]+)\/([\d.]+) ms/.exec(out);
    return {
      firstRenderP50: sorted.length > 0 ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN,
      firstRenderMax: sorted.at(-1) ?? NaN,
      updateP50: update ? Number(update[1]) : NaN,
      updateP95: update ? Number(update[2]) : NaN,
    };
  },
};

const num = (text: string) => Number(text.replace(/,/g, '').replace(/ %$/, ''));

/** Runs `npm run bench:<bench>` in `root`; resolves with its output. */
function runBench(bench: string, root: string, log: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${bench}.bench.ts`], { cwd: root, env: { ...process.env, BENCH_WRITE: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk: Buffer) => {
      out += chunk.toString();
      appendFileSync(log, chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`bench:${bench} in ${root} exited ${code}; output in ${log}`))));
  });
}

async function main(): Promise<void> {
  const [bench, baselineRoot, pairsArg] = process.argv.slice(2);
  const parse = bench ? PARSERS[bench] : undefined;
  if (!parse || !baselineRoot) throw new Error('usage: pairs.ts <loop|match|teams|approvals|ui> <baseline root> [pairs]');
  const pairs = Number(pairsArg ?? 2);
  const log = process.env.BENCH_PAIRS_LOG ?? `/tmp/bench-pairs-${bench}-${Date.now()}.log`;
  const rows: Array<{ pair: number; code: string; load: number; at: string; figures: Figures }> = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const trees = [['baseline', path.resolve(baselineRoot)], ['this tree', HERE]] as const;
    for (const [code, root] of pair % 2 === 1 ? trees : [...trees].reverse()) {
      await new Promise((resolve) => setTimeout(resolve, PAUSE_S * 1000));
      const load = os.loadavg()[0]!;
      const at = new Date().toISOString().slice(11, 16);
      appendFileSync(log, `\n=== pair ${pair}, ${code} (${root}), load ${load.toFixed(1)}, ${at} UTC\n`);
      const figures = parse(await runBench(bench!, root, log));
      rows.push({ pair, code, load, at, figures });
      process.stderr.write(`pair ${pair} ${code}: ${JSON.stringify(figures)}\n`);
    }
  }
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row.figures)))];
  const cell = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '' : value.toFixed(2));
  const lines = [`| pair | code | start (UTC) | load | ${keys.join(' | ')} |`, `|---|---|---|---:|${keys.map(() => '---:').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.pair} | ${row.code} | ${row.at} | ${row.load.toFixed(1)} | ${keys.map((key) => cell(row.figures[key])).join(' | ')} |`);
  lines.push('', '| pair | ' + keys.map((key) => `${key}, this tree / baseline`).join(' | ') + ' |', `|---|${keys.map(() => '---:').join('|')}|`);
  for (let pair = 1; pair <= pairs; pair++) {
    const [base, mine] = [rows.find((row) => row.pair === pair && row.code === 'baseline')!, rows.find((row) => row.pair === pair && row.code === 'this tree')!];
    lines.push(`| ${pair} | ${keys.map((key) => cell((mine.figures[key] ?? NaN) / (base.figures[key] ?? NaN))).join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n\nOutput of every run: ${log}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
