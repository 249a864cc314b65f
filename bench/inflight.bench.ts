/**
 * `npm run bench:inflight`: how many runs one runner holds in flight, and at
 * what cost (issue 37, decision 0053).
 *
 * All services as processes (gateway, event-log, matcher, one runner per
 * phase) and the local OpenAI-compatible server as a process of its own,
 * answering every call after 2 s; each run takes BENCH_TURNS model turns (a
 * call of an unknown tool between them). For each N of BENCH_INFLIGHT_NS the
 * runner holds N runs (RUNNER_CONCURRENCY = RUNNER_MODEL_CONNECTIONS = N)
 * over BENCH_WAVES × N queued runs, and in its steady window (at least half
 * its peak in flight) gives:
 * - completed model calls a second (the runner's counter) as a ratio to the ideal N / 2 s;
 * - the runner's RSS beyond the idle process, per run in flight;
 * - CPU per model turn, the runner's and the whole platform's, as a ratio to
 *   a bare loop of the same `openai` client calls (N at once, one process,
 *   the same server) measured just before, in the same run.
 * Writes its section of BENCHMARKS.md, with the load average (a shared machine).
 */
import os from 'node:os';
import OpenAI from 'openai';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { databaseServerUrl, runInflightLoad, spawnScript, startTestPlatform, type InflightSample, type ServiceProcess, type TestPlatform } from '@switchyard/testing';
import { benchServices } from './lib/bench-services';
import { processCpuMs } from './lib/process-cpu';
import { machineLine, writeSection } from './lib/report';
import { fmt } from './lib/stats';
import { enableRoundTrips, RoundTripWindow, roundTripRows } from './lib/round-trips';

const NS = (process.env.BENCH_INFLIGHT_NS ?? '100,1000,5000').split(',').map(Number);
const LATENCY_MS = 2000;
const TURNS = Number(process.env.BENCH_TURNS ?? 3);
const WAVES = Number(process.env.BENCH_WAVES ?? 2);
/** BENCH_ROUND_TRIPS=1: the runner's requests to PostgreSQL and Redis per run and per model turn (a hook in the runner). */
const ROUND_TRIPS_DIR = enableRoundTrips();
const load = () => os.loadavg().map((n) => n.toFixed(1)).join(' / ');

/** What one N measured. */
interface Phase {
  n: number;
  bare: { callsPerS: number; cpuMsPerCall: number; kibPerCall: number };
  runs: number;
  peakInFlight: number;
  callsPerS: number;
  idleRssMiB: number;
  peakRssMiB: number;
  kibPerRun: number;
  runnerCpuMsPerTurn: number;
  platformCpuMsPerTurn: number;
  peakSockets: number;
  /** At the RSS peak, beyond the idle runner, KiB per run in flight: V8's heap used and total, and external memory. */
  heapKibPerRun: { used: number; total: number; external: number };
  load: string;
  /** BENCH_ROUND_TRIPS=1: the runner's requests over the whole phase, by store and statement. */
  requests?: Record<string, number>;
}

/** N loops of the plain client, one call after another each, for 3 latencies after one of ramp: calls a second and CPU a call. */
async function bareLoop(baseURL: string, n: number): Promise<Phase['bare']> {
  const client = new OpenAI({ baseURL, apiKey: 'sk-bench', maxRetries: 0, timeout: 60_000 });
  let running = true;
  let done = 0;
  const call = async () => {
    const stream = await client.chat.completions.create({ model: 'stand-in', messages: [{ role: 'user', content: 'Answer the fact.' }], stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) void chunk;
  };
  let failed = 0;
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const loops = Array.from({ length: n }, async () => {
    while (running) {
      // A call the stand-in could not answer in time is counted, not fatal: the loop goes on.
      await call().then(
        () => (done += 1),
        () => (failed += 1),
      );
    }
  });
  await until(() => done > 0);
  const [fromCalls, fromCpu, from] = [done, process.cpuUsage(), performance.now()];
  await until(() => performance.now() - from >= 3 * LATENCY_MS);
  const cpu = process.cpuUsage(fromCpu);
  const calls = done - fromCalls;
  const seconds = (performance.now() - from) / 1000;
  running = false;
  clearInterval(sampler);
  await Promise.all(loops);
  if (failed > 0) process.stdout.write(`bare loop at ${n}: ${failed} calls failed\n`);
  return { callsPerS: calls / seconds, cpuMsPerCall: (cpu.user + cpu.system) / 1000 / calls, kibPerCall: (rssPeak - rssBefore) / 1024 / n };
}

/** Polls `ready` every 50 ms (a bench's own pacing, not a test's wait). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** V8's heap (used, total) and the memory outside it (external: buffers), in bytes, from prom-client's default metrics. */
interface HeapReading {
  used: number;
  total: number;
  external: number;
}

/** The runner's answered model calls and its heap, from its /metrics. */
async function runnerMetrics(healthPort: string): Promise<{ calls: number; heap: HeapReading }> {
  const lines = (await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text()).split('\n');
  const gauge = (name: string) => Number(lines.find((line) => line.startsWith(`${name} `))?.split(' ').pop() ?? 0);
  const calls = lines.filter((line) => line.startsWith('switchyard_runner_model_calls_total{')).reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  return { calls, heap: { used: gauge('nodejs_heap_size_used_bytes'), total: gauge('nodejs_heap_size_total_bytes'), external: gauge('nodejs_external_memory_bytes') } };
}

async function platformPhase(platform: TestPlatform, n: number, bare: Phase['bare']): Promise<Phase> {
  let runner: ServiceProcess | undefined;
  let healthPort: string | undefined;
  let window: RoundTripWindow | undefined;
  let idleHeap: HeapReading | undefined;
  const startRunner = async () => {
    runner = await platform.startRunner({ RUNNER_CONCURRENCY: String(n), RUNNER_MODEL_CONNECTIONS: String(n), DATABASE_POOL_MAX: '20', ...(ROUND_TRIPS_DIR ? { ROUND_TRIPS_DIR } : {}) });
    healthPort = /"healthPort":(\d+)[^\n]*runner started/.exec(runner.output())?.[1];
    if (!healthPort) throw new Error('the runner did not log its health port');
    idleHeap = (await runnerMetrics(healthPort)).heap;
    if (ROUND_TRIPS_DIR) {
      window = new RoundTripWindow(ROUND_TRIPS_DIR, { runner: runner.child.pid! });
      await window.start();
    }
    return runner;
  };
  const points: Array<{ sample: InflightSample; calls: number; heap: HeapReading; runnerCpu: number; platformCpu: number }> = [];
  const onSample = async (sample: InflightSample) => {
    const cpus = [platform.gateway, ...platform.eventLogs, platform.matcher!, runner!].map((proc) => processCpuMs(proc.child.pid!) ?? 0);
    points.push({ sample, ...(await runnerMetrics(healthPort!)), runnerCpu: processCpuMs(runner!.child.pid!) ?? 0, platformCpu: cpus.reduce((a, b) => a + b, 0) });
  };
  const result = await runInflightLoad({ platform, startRunner, agents: n / 10, facts: 10 * WAVES, concurrency: 10, timeoutMs: 900_000, sampleEveryMs: 500, onSample });
  const requests = window ? (await window.end()).runner : undefined;
  await result.runner.stop('SIGTERM');
  if (result.statuses.completed !== result.runs) throw new Error(`not every run completed: ${JSON.stringify(result.statuses)}`);
  const peakInFlight = Math.max(...points.map((p) => p.sample.running));
  const steady = points.filter((p) => p.sample.running >= peakInFlight / 2);
  const [first, last] = [steady[0]!, steady[steady.length - 1]!];
  const seconds = (last.sample.atMs - first.sample.atMs) / 1000;
  const turns = last.calls - first.calls;
  const peakRss = Math.max(...steady.map((p) => p.sample.footprint?.rssBytes ?? 0));
  const atPeak = steady.find((p) => p.sample.footprint?.rssBytes === peakRss)!.heap;
  const perRun = (bytes: number) => bytes / 1024 / peakInFlight;
  return {
    n,
    bare,
    runs: result.runs,
    peakInFlight,
    callsPerS: turns / seconds,
    idleRssMiB: result.idle.rssBytes / 2 ** 20,
    peakRssMiB: peakRss / 2 ** 20,
    kibPerRun: (peakRss - result.idle.rssBytes) / 1024 / peakInFlight,
    runnerCpuMsPerTurn: (last.runnerCpu - first.runnerCpu) / turns,
    platformCpuMsPerTurn: (last.platformCpu - first.platformCpu) / turns,
    peakSockets: Math.max(...points.map((p) => p.sample.footprint?.sockets ?? 0)),
    heapKibPerRun: { used: perRun(atPeak.used - idleHeap!.used), total: perRun(atPeak.total - idleHeap!.total), external: perRun(atPeak.external - idleHeap!.external) },
    load: load(),
    ...(requests ? { requests } : {}),
  };
}

function report(phases: Phase[], loadAtStart: string): string {
  const rows = phases.map((p) => {
    const ideal = p.n / (LATENCY_MS / 1000);
    return `| ${fmt(p.n)} | ${fmt(p.runs)} | ${fmt(p.peakInFlight)} | ${fmt(p.callsPerS)} / ${fmt(ideal)} = **${fmt(p.callsPerS / ideal, 2)}** | ${fmt(p.bare.callsPerS)} = ${fmt(p.bare.callsPerS / ideal, 2)} | **${fmt(p.callsPerS / p.bare.callsPerS, 2)}** | ${fmt(p.idleRssMiB)} → ${fmt(p.peakRssMiB)} MiB: **${fmt(p.kibPerRun)} KiB** (heap used ${fmt(p.heapKibPerRun.used)}, heap total ${fmt(p.heapKibPerRun.total)}, external ${fmt(p.heapKibPerRun.external)}; the bare loop's RSS ${fmt(p.bare.kibPerCall)} KiB a call in flight) | ${fmt(p.runnerCpuMsPerTurn, 2)} / ${fmt(p.bare.cpuMsPerCall, 2)} = **${fmt(p.runnerCpuMsPerTurn / p.bare.cpuMsPerCall, 1)}×** | ${fmt(p.platformCpuMsPerTurn, 2)} ms = **${fmt(p.platformCpuMsPerTurn / p.bare.cpuMsPerCall, 1)}×** | ${fmt(p.peakSockets)} | ${p.load} |`;
  });
  const requestRows = phases.flatMap((p) => (p.requests ? roundTripRows({ [`runner at N = ${fmt(p.n)}, per run (${TURNS} model turns)`]: p.requests }, p.runs, 12) : []));
  const requests = requestRows.length
    ? `\nThe runner's requests per run over the whole phase (BENCH_ROUND_TRIPS=1: a hook counts what it writes to PostgreSQL, by prepared statement, and to Redis, by command):

| runner | per run, by store | most frequent, per run |
|---|---|---|
${requestRows.join('\n')}
`
    : '';
  return `## bench:inflight — runs in flight on one runner (issue 37, decision 0053)

- Machine: ${machineLine('all services as processes (gateway, event-log, matcher, one runner), the local OpenAI-compatible server in its own process')}, ${new Date().toISOString().slice(0, 10)}; load average (1 / 5 / 15 min) ${loadAtStart} at the start, per phase at its end in the table.
- Command: \`BENCH_INFLIGHT_NS=${NS.join(',')} BENCH_TURNS=${TURNS} BENCH_WAVES=${WAVES} npm run bench:inflight\`. Every model call answered after ${LATENCY_MS} ms; a run takes ${TURNS} model turns; ${WAVES} × N runs queued over N/10 agents of concurrency 10; RUNNER_CONCURRENCY = RUNNER_MODEL_CONNECTIONS = N; figures over the window where at least half the peak was in flight.
- Targets: calls/s ≥ 0.9 of the ideal N / 2 s at 1,000; RSS ≤ 256 KiB a run in flight beyond the idle runner; CPU per model turn ≤ 3× the bare loop's per call (same \`openai\` client calls, N at once, one process, same server, measured just before).

| N | runs | peak in flight | model calls/s (ratio to ideal) | bare loop's calls/s (ratio to ideal) | platform's calls/s ÷ bare loop's | runner RSS idle → peak (per run in flight; of it, KiB a run at the peak) | runner CPU ms/turn / bare ms/call | platform CPU ms/turn (ratio to bare) | runner sockets peak | load after |
|---:|---:|---:|---|---|---:|---|---|---|---:|---|
${rows.join('\n')}
${requests}`;
}

async function main(): Promise<void> {
  const procs = benchServices('databases sy_test_* and sy_bench_template_*, Redis keys of their prefixes');
  const loadAtStart = load();
  // The migrated template each TestPlatform's database is cloned from (jest's global setup makes it for tests).
  const template = withDatabaseName(databaseServerUrl(), `sy_bench_template_${Date.now()}`);
  await ensureDatabase(template);
  await applyMigrations(template);
  process.env.SY_TEST_TEMPLATE = new URL(template).pathname.slice(1);
  const standIn: ServiceProcess = await spawnScript('bench/lib/openai-stand-in.ts', { STAND_IN_LATENCY_MS: String(LATENCY_MS), STAND_IN_TURNS: String(TURNS) });
  procs.push(standIn);
  const baseUrl = /"baseUrl":"([^"]+)"/.exec(standIn.output())?.[1];
  if (!baseUrl) throw new Error('the stand-in did not log its base URL');
  const platform = await startTestPlatform({ matcher: true, env: { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'sk-bench', RATE_LIMIT_PER_SECOND: '1000000' } });
  procs.push(platform.gateway, ...platform.eventLogs, platform.matcher!);
  const phases: Phase[] = [];
  try {
    for (const n of NS) {
      const bare = await bareLoop(baseUrl, n);
      phases.push(await platformPhase(platform, n, bare));
      process.stdout.write(`${JSON.stringify(phases[phases.length - 1])}\n`);
    }
  } finally {
    await platform.stop();
    await standIn.stop('SIGTERM');
    await dropDatabase(template);
  }
  const body = report(phases, loadAtStart);
  process.stdout.write(body);
  writeSection('bench:inflight', body);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
