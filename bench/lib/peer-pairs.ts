import { readFileSync } from 'node:fs';
import { startSlowCommits } from '@switchyard/testing';
import type { PipeBullmqPeer } from './pipe-bullmq/peer';
import { fmt, quantile } from './stats';

/** What bench:match measured of Switchyard at one load, as the pairs need it. */
export interface SwitchyardSample {
  /** Fact published on `facts` (after its commit) → run started, ms. */
  toStart: number[];
  cpuPerRunMs: number | null;
  started: number;
  published: number;
}

/** Options of runPeerPairs. */
export interface PeerPairsOptions {
  /** Measures Switchyard at `rate` facts/s for the bench's window; waits up to `waitMs` for its runs to start. */
  switchyard: (rate: number, waitMs: number) => Promise<SwitchyardSample>;
  peer: PipeBullmqPeer;
  /** Database URL the slow-commit client writes to (the bench's server). */
  slowCommitsUrl: string;
  /** Rates of the CPU and latency pairs (BENCH_PEER_RATES). */
  rates: number[];
  /** Rates of the pairs with a slow-commit client beside (BENCH_PEER_SLOW_RATES). */
  slowRates: number[];
  /** Steps of the max sustained rate (BENCH_PEER_MAXRATES), each `maxRateSeconds` long. */
  maxRates: number[];
  maxRateSeconds: number;
  seconds: number;
  warmSeconds: number;
  /** Interleaved rounds of each pair (BENCH_PEER_ROUNDS). */
  rounds: number;
}

/** One interleaved pair: Switchyard then the peer, same rate, back to back. */
export interface Pair {
  round: number;
  rate: number;
  slow: boolean;
  load: number[];
  sy: { p50: number; p99: number; cpuPerRunMs: number | null; started: number; published: number };
  peer: { refused: number; p50: number; p99: number; commitP50: number; commitP99: number; cpuPerRunMs: number | null; started: number; offered: number };
}

/** The result of the max sustained rate steps: the highest rate that held, per contender. */
export interface MaxRates {
  switchyard: number;
  peer: number;
  steps: Array<{ who: 'switchyard' | 'pipe-bullmq'; rate: number; ok: boolean; p99: number; started: string; load: number[] }>;
}

const loadAverage = (): number[] => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

/**
 * Why this exists: issue 37 sets bench:match's targets as ratios to the pipe-bullmq peer
 * measured in the same run. Runs the pairs interleaved (Switchyard, then the peer, at each rate,
 * each round), again with a slow-commit client beside, then raises the rate step by step for
 * each until p99 > 1 s or not every run started 3 s after the window.
 */
export async function runPeerPairs(options: PeerPairsOptions): Promise<{ pairs: Pair[]; max: MaxRates }> {
  const pairs: Pair[] = [];
  const pair = async (round: number, rate: number, slow: boolean) => {
    const load = loadAverage();
    const commits = slow ? await startSlowCommits(options.slowCommitsUrl) : undefined;
    try {
      const sy = await options.switchyard(rate, 30_000);
      const peer = await options.peer.measure(rate, options.seconds, options.warmSeconds, 30_000);
      pairs.push({
        round, rate, slow, load,
        sy: { p50: quantile(sy.toStart, 0.5), p99: quantile(sy.toStart, 0.99), cpuPerRunMs: sy.cpuPerRunMs, started: sy.started, published: sy.published },
        peer: { refused: peer.refused, p50: quantile(peer.toStart, 0.5), p99: quantile(peer.toStart, 0.99), commitP50: quantile(peer.fromCommit, 0.5), commitP99: quantile(peer.fromCommit, 0.99), cpuPerRunMs: peer.cpuPerRunMs, started: peer.started, offered: peer.offered },
      });
      console.log(`pair ${round} ${rate}/s${slow ? ' slow commits' : ''}: ${JSON.stringify(pairs.at(-1))}`);
    } finally {
      await commits?.stop();
    }
  };
  for (let round = 1; round <= options.rounds; round++) {
    for (const rate of options.rates) await pair(round, rate, false);
    for (const rate of options.slowRates) await pair(round, rate, true);
  }
  const max: MaxRates = { switchyard: 0, peer: 0, steps: [] };
  let syGoes = true;
  let peerGoes = true;
  for (const rate of options.maxRates) {
    if (syGoes) {
      const load = loadAverage();
      const sy = await options.switchyard(rate, 3_000);
      const p99 = quantile(sy.toStart, 0.99);
      const ok = sy.started >= sy.published && p99 <= 1000;
      max.steps.push({ who: 'switchyard', rate, ok, p99, started: `${sy.started}/${sy.published}`, load });
      if (ok) max.switchyard = rate;
      syGoes = ok;
    }
    if (peerGoes) {
      const load = loadAverage();
      const peer = await options.peer.measure(rate, options.maxRateSeconds, 1, 3_000);
      const p99 = quantile(peer.toStart, 0.99);
      const ok = peer.refused === 0 && peer.started >= peer.offered && p99 <= 1000;
      max.steps.push({ who: 'pipe-bullmq', rate, ok, p99, started: `${peer.started}/${peer.offered}`, load });
      if (ok) max.peer = rate;
      peerGoes = ok;
    }
    if (!syGoes && !peerGoes) break;
  }
  return { pairs, max };
}

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? 'n/a' : `${fmt(a / b, 2)}×`);

/** The markdown of the pairs: the issue's four ratios, with the load average of each pair. */
export function peerPairsSection(result: { pairs: Pair[]; max: MaxRates }, maxRateSeconds: number): string {
  const rows = result.pairs.map((p) => `| ${p.round} | ${p.rate}/s${p.slow ? ', slow commits' : ''} | ${p.load.map((v) => v.toFixed(1)).join(' ')} | ${p.sy.cpuPerRunMs === null ? 'n/a' : p.sy.cpuPerRunMs.toFixed(2)} ms | ${p.peer.cpuPerRunMs === null ? 'n/a' : p.peer.cpuPerRunMs.toFixed(2)} ms | **${ratio(p.sy.cpuPerRunMs, p.peer.cpuPerRunMs)}** | ${fmt(p.sy.p50, 1)} / ${fmt(p.sy.p99)} ms (${fmt(p.sy.started)}/${fmt(p.sy.published)}) | ${fmt(p.peer.commitP50, 1)} / ${fmt(p.peer.commitP99)} ms | **${ratio(p.sy.p50, p.peer.commitP50)}** | ${fmt(p.peer.p50, 1)} / ${fmt(p.peer.p99)} ms (${fmt(p.peer.started)}/${fmt(p.peer.offered)}${p.peer.refused ? `, ${fmt(p.peer.refused)} refused` : ''}) |`);
  const steps = result.max.steps.map((s) => `${s.who} ${s.rate}/s ${s.ok ? 'held' : 'failed'} (p99 ${fmt(s.p99)} ms, started ${s.started}, load ${s.load[0]!.toFixed(1)})`).join('; ');
  return `Against the peer of issue 37, **pipe-bullmq** (bench/lib/pipe-bullmq: \`node:http\`, one \`UPDATE … RETURNING\` seq + \`INSERT\` of the event, a BullMQ job per match, a worker of concurrency 10 that inserts and completes a run row — the glue of ../shared/peer-bench), in its own two processes and database on the same Redis and PostgreSQL server, measured in interleaved pairs (Switchyard's window, then the peer's, at each rate, each round). CPU per run: Switchyard's platform processes (as above) and the peer's front, worker, its PostgreSQL backends and Redis, each over the runs completed in its window. Switchyard's latency is fact published on \`facts\` (after its commit) → run started; the peer's second column is its event committed → run started, the third request sent → run started. "Slow commits": a second PostgreSQL client inserting 2,000 rows of 1 KiB per statement in a loop with \`synchronous_commit\` on (libs/testing \`startSlowCommits\`) during both windows of the pair. Targets (issue 37): CPU per run ≤ 1.5×, published → started p50 ≤ 2× the peer's commit → started p50, max sustained rate ≥ 1×.

| round | rate | load avg (1/5/15 min) at the pair's start | Switchyard CPU/run | pipe-bullmq CPU/run | CPU ratio | Switchyard published → started p50 / p99 (started) | pipe-bullmq commit → started p50 / p99 | p50 ratio | pipe-bullmq request → started p50 / p99 (started) |
|---:|---|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Max sustained rate (${maxRateSeconds} s steps, raised until p99 > 1 s or not every run started 3 s after the window): Switchyard ${fmt(result.max.switchyard)}/s, pipe-bullmq ${fmt(result.max.peer)}/s, ratio **${ratio(result.max.switchyard, result.max.peer)}**. Steps: ${steps}.
`;
}
