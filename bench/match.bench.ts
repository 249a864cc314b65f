/**
 * `npm run bench:match`: matcher throughput (facts/s) with 10, 1,000 and
 * 10,000 enabled agents in one workspace (3 of them match each fact), and
 * fact published → run started latency at a fixed open-loop load with a
 * scripted agent and `BENCH_RUNNERS` runners (one by default). Baseline in the same run: a bare BullMQ
 * `queue.add` → Worker pickup on the same Redis at the same rate. Writes its
 * section of BENCHMARKS.md, with the CPU each group of processes took while
 * each load was offered and what a wake-up costs on the machine.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { Client } from 'pg';
import { AGENT_SPEC_SCHEMA_VERSION, AgentSpecSchema, GROUPS, STREAMS } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createRedis, streamGroupStats } from '@switchyard/redis';
import { setRunColumns, spawnScript, spawnService, type ServiceProcess } from '@switchyard/testing';
import { benchServices } from './lib/bench-services';
import { HttpLoad } from './lib/http-load';
import { fmt, quantile } from './lib/stats';
import { machineLine, writeSection } from './lib/report';
import { roundTripCost } from './lib/wakeup-probe';
import { CpuWindow } from './lib/process-cpu';
import { perRun, pgCounters, type PgCounters } from './lib/pg-activity';
import { enableRoundTrips, RoundTripWindow, roundTripRows } from './lib/round-trips';
import { PipeBullmqPeer } from './lib/pipe-bullmq/peer';
import { peerPairsSection, runPeerPairs } from './lib/peer-pairs';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Agent counts of the throughput scenarios (comma-separated). */
const AGENT_COUNTS = (process.env.BENCH_AGENTS ?? '10,1000,10000').split(',').map(Number);
/** Facts per throughput scenario, posted in batches of 100. */
const FACTS = Number(process.env.BENCH_FACTS ?? 2000);
/**
 * Offered loads of the latency phase, in facts/s: `200` posts each fact in a request of its
 * own, `200x10` posts them 10 to a request (`/events:batch`). The target's first, then
 * producers that batch, then lighter loads.
 */
const LOADS = (process.env.BENCH_RATES ?? '200,200x10,100,40').split(',').map((spec) => {
  const [rate, perRequest] = spec.split('x').map(Number);
  return { rate: rate!, perRequest: perRequest ?? 1, label: perRequest ? `${rate}/s, ${perRequest} per request` : `${rate}/s` };
});
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 1);
const MATCHING = 3;
/** Runner processes of the latency runs: one per two cores (see the section's text). */
const RUNNERS = Number(process.env.BENCH_RUNNERS ?? 1);
/** Longest wait for the latency runs to start after the load ends. */
const WAIT_MS = Number(process.env.BENCH_WAIT_MS ?? 30_000);
/** The pipe-bullmq peer of issue 37 (BENCH_PEER=0: none): its pairs' rates, rates with slow commits, max-rate steps, rounds. */
const rates = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean).map(Number);
const PEER = process.env.BENCH_PEER !== '0';
const PEER_RATES = rates('BENCH_PEER_RATES', '10,40,100,200');
const PEER_SLOW_RATES = rates('BENCH_PEER_SLOW_RATES', '40,100');
const PEER_MAXRATES = rates('BENCH_PEER_MAXRATES', '40,70,100,150,200,300,400,600');
const PEER_MAXRATE_SECONDS = Number(process.env.BENCH_PEER_MAXRATE_SECONDS ?? 5);
const PEER_ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 2);
/**
 * BENCH_LAYOUT=one-process: every service in one process (scripts/start-all.ts, what `npm start`
 * runs) instead of one process per service; the matcher throughput scenarios (which SIGSTOP the
 * matcher alone) are skipped, and the results go to a section of their own.
 */
const LAYOUT = process.env.BENCH_LAYOUT ?? 'services';
if (LAYOUT !== 'services' && LAYOUT !== 'one-process') throw new Error(`BENCH_LAYOUT: expected services or one-process, got ${LAYOUT}`);
const ONE_PROCESS = LAYOUT === 'one-process';

/**
 * CPU priorities (nice values) of services, e.g. `runner=-8,matcher=-8` (negative ones need
 * the privilege to raise a priority): what a deployment's CPU weights do (decision 0017).
 */
const NICE = new Map(
  (process.env.BENCH_NICE ?? '').split(',').filter(Boolean).map((pair) => {
    const [name, value] = pair.split('=');
    if (!name || !/^-?\d+$/.test(value ?? '')) throw new Error(`BENCH_NICE: expected service=nice, got ${pair}`);
    return [name, Number(value)] as const;
  }),
);
/** BENCH_PG_STATS=1: what each activated run cost PostgreSQL (transactions, rows, function calls), from its statistics (11 s more per load). */
const PG_STATS = process.env.BENCH_PG_STATS === '1';
/** Extra settings of the bench database for the services' sessions, `;`-separated (e.g. `plan_cache_mode=force_generic_plan`). */
/** BENCH_ROUND_TRIPS=1: each service's requests to Redis and PostgreSQL per activated run, by command (a hook in every service). */
const ROUND_TRIPS_DIR = enableRoundTrips();
const PG_SETTINGS = [...(process.env.BENCH_PG_SETTINGS ?? '').split(';').filter(Boolean), ...(PG_STATS ? ['track_functions = pl'] : [])];

/** A spawned service, at its BENCH_NICE priority if it has one. */
function niced(name: string, service: ServiceProcess): ServiceProcess {
  const nice = NICE.get(name);
  if (nice !== undefined) os.setPriority(service.child.pid!, nice);
  return service;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 120_000, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** A stored spec as the gateway would store it: parsed with its defaults, without `enabled`. */
function storedSpec(raw: Record<string, unknown>): string {
  return JSON.stringify(AgentSpecSchema.parse(raw));
}

const idleTrigger = (i: number) => ({ kind: [`other${i}.done`, `other${i}.*`, `*.x${i}`][i % 3]! });

async function main(): Promise<void> {
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  // BENCH_AUTO_EXPLAIN=1: the plans of a twentieth of the services' statements go to the
  // PostgreSQL server's log. Settings of this database only, which is dropped at the end.
  await setDatabase(dbUrl, [...(process.env.BENCH_AUTO_EXPLAIN === '1' ? EXPLAIN_SETTINGS : []), ...PG_SETTINGS]);
  const prefix = `bench${randomUUID().slice(0, 8)}`;
  const env = {
    DATABASE_URL: dbUrl, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'info', PORT: '0', RATE_LIMIT_PER_SECOND: '1000000',
    GATEWAY_HEALTH_PORT: '0', EVENT_LOG_HEALTH_PORT: '0', MATCHER_HEALTH_PORT: '0', RUNNER_HEALTH_PORT: '0', APPROVALS_HEALTH_PORT: '0', NOTIFIER_HEALTH_PORT: '0', ...(ROUND_TRIPS_DIR ? { ROUND_TRIPS_DIR } : {}),
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  };
  const redis = createRedis(REDIS_URL);
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  const procs = benchServices(`database ${dbUrl}, Redis keys ${prefix}:*`);
  let matcher: ServiceProcess | undefined;
  let load: HttpLoad | undefined;
  try {
    const token = (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', 'bench'], { cwd: ROOT, env: { ...process.env, ...env } })).stdout.trim().split('\n').at(-1)!;
    const workspaceId = (await pg.query('SELECT id::text AS id FROM workspaces WHERE slug = $1', ['bench'])).rows[0].id as string;
    const createdBy = newId();
    /** The services layout's processes, or the one process of the other layout (started with the latency agent in place). */
    let eventLog: ServiceProcess | undefined;
    let gateway: ServiceProcess | undefined;
    let platform: ServiceProcess | undefined;
    const listenOn = (front: ServiceProcess) => {
      const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(front.output())?.[1] ?? /"port":(\d+)/.exec(front.output())![1];
      load = new HttpLoad(`http://127.0.0.1:${port}`, { authorization: `Bearer ${token}` }, 16);
    };
    if (!ONE_PROCESS) {
      eventLog = niced('event-log', await spawnService('event-log', { ...env, EVENT_LOG_CONSUMER: 'el-bench' }, { output: 'file' }));
      procs.push(eventLog);
      gateway = niced('gateway', await spawnService('gateway', env, { readyPattern: /gateway listening/, output: 'file' }));
      procs.push(gateway);
      listenOn(gateway);
    }
    const expect202 = (status: number) => {
      if (status !== 202) throw new Error(`unexpected status ${status}`);
    };
    const startMatcher = async () => {
      matcher = niced('matcher', await spawnService('matcher', { ...env, MATCHER_CONSUMER: 'm-bench' }, { readyPattern: /matcher started/, timeoutMs: 120_000, output: 'file' }));
      procs.push(matcher);
    };
    const stopMatcher = async () => {
      if (!matcher) return;
      matcher.child.kill('SIGCONT');
      await matcher.stop();
      procs.splice(procs.indexOf(matcher), 1);
      matcher = undefined;
    };
    const lastSeq = async () => Number((await pg.query('SELECT last_seq FROM workspace_event_seq WHERE workspace_id = $1', [workspaceId])).rows[0]?.last_seq ?? 0);
    const cursor = async () =>
      Number((await pg.query(`SELECT last_seq FROM consumer_cursors WHERE consumer = 'matcher' AND workspace_id = $1`, [workspaceId])).rows[0]?.last_seq ?? 0);
    const groupIdle = async (stream: string, group: string) => {
      const mine = (await streamGroupStats(redis, `${prefix}:${stream}`)).find((s) => s.group === group);
      return !!mine && mine.pending === 0 && (mine.lag ?? 1) === 0;
    };
    const persisted = () => waitUntil('ingest drained', () => groupIdle(STREAMS.ingest, GROUPS.eventLog));
    /** Everything posted so far went through the event-log and the matcher (run facts included). */
    const settle = async () => {
      for (let quiet = 0; quiet < 3; quiet++) {
        await persisted();
        await waitUntil('matcher caught up', async () => (await cursor()) >= (await lastSeq()));
        await sleep(100);
        if ((await lastSeq()) > (await cursor())) quiet = -1;
      }
    };
    const postBatches = async (count: number, kind: string) => {
      let sent = 0;
      await load!.closedLoop(4, '/v1/workspaces/bench/events:batch', () => {
        if (sent >= count) return undefined;
        const events = Array.from({ length: Math.min(100, count - sent) }, (_, k) => ({ kind, subject: { type: 'bench', id: String(sent + k) }, payload: { i: sent + k, score: (sent + k) % 100 } }));
        sent += events.length;
        return JSON.stringify({ events });
      }, expect202);
    };
    /** With the matcher stopped: no live agents, no runs, no activation jobs. */
    const resetAgents = async () => {
      await pg.query('UPDATE agents SET deleted_at = now() WHERE deleted_at IS NULL');
      await pg.query('DELETE FROM runs');
      const keys = await redis.keys(`${prefix}:activations:*`);
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    };
    const insertAgents = async (specs: Array<{ name: string; spec: string }>) => {
      for (let i = 0; i < specs.length; i += 1000) {
        const chunk = specs.slice(i, i + 1000);
        const ids = chunk.map(() => newId());
        await pg.query(
          `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at)
           SELECT id, $1::uuid, name, 1, true, $2::uuid, now() FROM unnest($3::uuid[], $4::text[]) AS v(id, name)`,
          [workspaceId, createdBy, ids, chunk.map((a) => a.name)],
        );
        await pg.query(
          `INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by)
           SELECT id, 1, $1, spec::jsonb, $2::uuid FROM unnest($3::uuid[], $4::text[]) AS v(id, spec)`,
          [AGENT_SPEC_SCHEMA_VERSION, createdBy, ids, chunk.map((a) => a.spec)],
        );
      }
    };

    // 1. Throughput: agents inserted with SQL before the matcher starts (it loads them at start).
    // Each scenario: warm the matcher up, SIGSTOP it, post FACTS facts and wait until the
    // event-log persisted them, SIGCONT it and time until its saved cursor reaches the last seq.
    // The first scenario is run twice and its first pass not recorded: whatever ran it was cold
    // (the event-log, which persists the runs' `agent.run.queued` facts meanwhile, and
    // PostgreSQL's caches), and the first pass measured about half the throughput of the same
    // scenario run later, in either order of the agent counts.
    const throughput: Array<{ agents: number; factsPerSecond: number; runs: number; loadMs: number }> = [];
    for (const [scenario, count] of (ONE_PROCESS ? [] : [AGENT_COUNTS[0]!, ...AGENT_COUNTS]).entries()) {
      await stopMatcher();
      await resetAgents();
      const base = { instructions: 'Act on the fact.', model: { provider: 'openai', name: 'gpt-4.1-mini' }, flow: { queueCap: 10_000 } };
      const matchingKinds = ['load.fact', 'load.*', '*.fact'];
      const specs = matchingKinds.map((kind, i) => ({ name: `s${scenario}-match-${i}`, spec: storedSpec({ ...base, name: `s${scenario}-match-${i}`, triggers: [{ kind }] }) }));
      for (let i = 0; i < count - MATCHING; i++) {
        const name = `s${scenario}-idle-${i}`;
        specs.push({ name, spec: storedSpec({ ...base, name, triggers: [idleTrigger(i)] }) });
      }
      await insertAgents(specs);
      const loadStarted = performance.now();
      await startMatcher();
      const loadMs = performance.now() - loadStarted;
      await postBatches(300, 'load.fact'); // warm-up: JIT, pools
      await settle();
      await pg.query('DELETE FROM runs');
      const before = Number((await pg.query('SELECT count(*) FROM runs')).rows[0].count);
      matcher!.child.kill('SIGSTOP');
      await postBatches(FACTS, 'load.fact');
      await persisted();
      const target = await lastSeq();
      const started = performance.now();
      matcher!.child.kill('SIGCONT');
      // Done when every run is recorded (the cursor of such batches is saved lazily, up to 1 s
      // later: decision 0010), and the cursor then confirms every fact was processed.
      const runsNow = async () => Number((await pg.query('SELECT count(*) FROM runs')).rows[0].count) - before;
      await waitUntil('every run recorded', async () => (await runsNow()) >= FACTS * MATCHING, 300_000, 5);
      const elapsed = performance.now() - started;
      await waitUntil('matcher cursor at the last seq', async () => (await cursor()) >= target, 300_000, 5);
      const runs = Number((await pg.query('SELECT count(*) FROM runs')).rows[0].count) - before;
      if (scenario > 0) throughput.push({ agents: count, factsPerSecond: (FACTS * 1000) / elapsed, runs, loadMs });
      console.log(`${count} agents${scenario === 0 ? ' (warm-up pass, not recorded)' : ''}: ${fmt((FACTS * 1000) / elapsed)} facts/s (${runs} runs; matcher start ${fmt(loadMs)} ms)`);
      await settle();
    }

    // 2. Fact published → run started at each of LOADS, one matching scripted agent, RUNNERS runners.
    await stopMatcher();
    await resetAgents();
    await insertAgents([{
      name: 'latency',
      spec: storedSpec({
        name: 'latency',
        instructions: 'Act on the fact.',
        model: { provider: 'scripted', name: 'x', params: { stepMs: 0 } },
        script: [{ say: 'done' }],
        triggers: [{ kind: 'lat.*' }],
        flow: { concurrency: 10, queueCap: 10_000 },
      }),
    }]);
    // The throughput scenarios left thousands of deleted runs and agents: vacuum now, so that
    // autovacuum does not take its turn on the two cores in the middle of a latency run.
    for (const table of ['runs', 'agents', 'agent_versions', 'platform_events', 'transcript_entries']) await pg.query(`VACUUM ANALYZE ${table}`);
    const runners: ServiceProcess[] = [];
    if (ONE_PROCESS) {
      platform = await spawnScript('scripts/start-all.ts', { ...env, EVENT_LOG_CONSUMER: 'el-bench', MATCHER_CONSUMER: 'm-bench', RUNNER_NAME: 'r-bench-0' }, { readyPattern: /all services started/, timeoutMs: 120_000, output: 'file' });
      procs.push(platform);
      listenOn(platform);
    } else {
      await startMatcher();
      for (let r = 0; r < RUNNERS; r++) runners.push(niced('runner', await spawnService('runner', { ...env, RUNNER_NAME: `r-bench-${r}` }, { readyPattern: /runner started/, output: 'file' })));
      procs.push(...runners);
    }
    const event = (kind: string, i: number) => ({ kind, subject: { type: 'bench', id: String(i) }, payload: { i } });
    /** Posts `count` facts of `kind` at `rate` facts/s, `perRequest` to a request, on schedule. */
    const offer = (rate: number, perRequest: number, count: number, kind: string) =>
      perRequest === 1
        ? load!.openLoop(rate, count, '/v1/workspaces/bench/events', (i) => JSON.stringify(event(kind, i)), expect202)
        : load!.openLoop(rate / perRequest, Math.ceil(count / perRequest), '/v1/workspaces/bench/events:batch', (r) =>
            JSON.stringify({ events: Array.from({ length: perRequest }, (_, k) => event(kind, r * perRequest + k)) }), expect202);
    /** Waits (at most `timeoutMs`) until `n` runs of facts of `kind` started; a saturated pipeline is reported, not waited out. */
    const allStarted = async (kind: string, n: number, timeoutMs: number) => {
      await waitUntil(`${kind} runs started`, async () => Number((await pg.query(`SELECT count(*) FROM runs WHERE event_kind = $1 AND started_at IS NOT NULL`, [kind])).rows[0].count) >= n, timeoutMs, 250).catch(() => undefined);
    };
    const factsKey = `${prefix}:${STREAMS.facts}`;
    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? 0);
    /** The processes whose CPU the latency phase reports, by group. */
    const cpuGroups = async (): Promise<Record<string, number[]>> => ({
      ...(platform
        ? { 'platform (one process)': [platform.child.pid!] }
        : { gateway: [gateway!.child.pid!], 'event-log': [eventLog!.child.pid!], matcher: matcher?.child.pid ? [matcher.child.pid] : [], runner: runners.map((r) => r.child.pid!) }),
      PostgreSQL: (await pg.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
      Redis: redisPid ? [redisPid] : [],
      'load generator': [process.pid],
    });
    /** Posts `rate` facts/s for SECONDS and measures published → queued → started for each. */
    const measureAt = async ({ rate, perRequest, label }: (typeof LOADS)[number], n: number, waitMs = WAIT_MS, seconds = SECONDS) => {
      const warm = `lat.warm${n}`;
      const kind = `lat.fact${n}`;
      await offer(rate, perRequest, rate * WARM_SECONDS, warm);
      await allStarted(warm, rate * WARM_SECONDS, 30_000);
      // Statistics as autovacuum keeps them on a live system: the VACUUM ANALYZE above saw the
      // tables nearly empty, and autovacuum (a minute apart) would not look again during a load,
      // so the planner took the runs table for a few rows and scanned it whole (auto_explain).
      await pg.query('ANALYZE runs, platform_events, transcript_entries');
      const fromId = (await redis.xrevrange(factsKey, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
      const total = rate * seconds;
      const countersBefore: PgCounters | undefined = PG_STATS ? await pgCounters(pg) : undefined;
      const roundTrips = ROUND_TRIPS_DIR
        ? new RoundTripWindow(ROUND_TRIPS_DIR, platform
          ? { platform: platform.child.pid! }
          : { gateway: gateway!.child.pid!, 'event-log': eventLog!.child.pid!, matcher: matcher!.child.pid!, ...Object.fromEntries(runners.map((r, i) => [`runner ${i + 1}`, r.child.pid!])) })
        : undefined;
      await roundTrips?.start();
      const cpuWindow = await new CpuWindow(cpuGroups).start();
      const windowStart = new Date();
      await offer(rate, perRequest, total, kind);
      const cpu = await cpuWindow.end();
      const requests = await roundTrips?.end();
      const wakeups = cpuWindow.wakeups();
      const windowEnd = new Date();
      // CPU per activated run: every platform process's CPU in the window over the runs that ended in it.
      const ended = Number((await pg.query(`SELECT count(*) FROM runs WHERE event_kind = $1 AND status = 'completed' AND ended_at BETWEEN $2 AND $3`, [kind, windowStart, windowEnd])).rows[0].count);
      const platformPct = Object.entries(cpu).filter(([group]) => group !== 'load generator').reduce((sum, [, pct]) => sum + pct, 0);
      const cpuPerRunMs = ended > 0 ? ((platformPct / 100) * (windowEnd.getTime() - windowStart.getTime())) / ended : null;
      await allStarted(kind, total, waitMs);
      const measuredAt = Date.now();
      let pgPerRun: Array<[string, number]> | undefined;
      if (countersBefore) {
        await waitUntil('runs of the load ended', async () => Number((await pg.query(`SELECT count(*) FROM runs WHERE event_kind = $1 AND status IN ('queued', 'running')`, [kind])).rows[0].count) === 0, 60_000, 250).catch(() => undefined);
        await sleep(11_000);
        const runsOfLoad = Number((await pg.query(`SELECT count(*) FROM runs WHERE event_kind = $1 AND status = 'completed'`, [kind])).rows[0].count);
        pgPerRun = perRun(countersBefore, await pgCounters(pg), runsOfLoad);
      }
      const published = new Map<string, { xadd: number; ts: number }>();
      for (let from = fromId; ;) {
        const entries = await redis.xrange(factsKey, `(${from}`, '+', 'COUNT', 5000);
        if (entries.length === 0) break;
        for (const [id, fields] of entries) {
          from = id;
          const message = JSON.parse(fields[1]!);
          if (message.fact.kind === kind) published.set(message.fact.id, { xadd: Number(id.split('-')[0]), ts: Date.parse(message.fact.ts) });
        }
      }
      const rows = (await pg.query<{ event_id: string; queued_at: Date | null; started_at: Date | null }>(
        `SELECT event_id::text, queued_at, started_at FROM runs WHERE event_kind = $1`,
        [kind],
      )).rows;
      const toStart: number[] = [];
      const fromAccept: number[] = [];
      const toQueued: number[] = [];
      let started = 0;
      for (const row of rows) {
        const p = published.get(row.event_id);
        if (!p) continue;
        // A run not started when the wait ended counts as started then: its figure is a lower bound.
        const startedAt = row.started_at?.getTime() ?? measuredAt;
        if (row.started_at) started += 1;
        toStart.push(startedAt - p.xadd);
        fromAccept.push(startedAt - p.ts);
        if (row.queued_at) toQueued.push(row.queued_at.getTime() - p.xadd);
      }
      // Facts without a run yet (still on the way to the matcher) count likewise.
      const withRun = new Set(rows.map((row) => row.event_id));
      for (const [id, p] of published) {
        if (withRun.has(id)) continue;
        toStart.push(measuredAt - p.xadd);
        fromAccept.push(measuredAt - p.ts);
      }
      // A backlog left by a saturating rate is cancelled (it was measured), so the next rate starts clean.
      await setRunColumns(pg, { status: 'queued' }, { status: 'cancelled', reason: 'bench', ended_at: new Date() });
      await waitUntil('running runs ended', async () => Number((await pg.query(`SELECT count(*) FROM runs WHERE status = 'running'`)).rows[0].count) === 0, 60_000, 100);
      const wakeupsPerRun = ended > 0 ? Object.fromEntries(Object.entries(wakeups).map(([group, n]) => [group, n / ended])) : null;
      return { rate, label, total, published: published.size, started, toStart, fromAccept, toQueued, cpu, cpuPerRunMs, ended, pgPerRun, wakeupsPerRun, requests };
    };
    const measured = [];
    for (const [n, spec] of LOADS.entries()) measured.push(await measureAt(spec, n));
    // 2b. Issue 37: interleaved pairs against the pipe-bullmq peer, then the max sustained rate of each.
    // Its BullMQ keys are under the bench's prefix, so the cleanup at the end removes them too.
    let peerSection = '';
    if (PEER) {
      const peer = new PipeBullmqPeer(withDatabaseName(SERVER_URL, `sy_bench_peer_${Date.now()}`), REDIS_URL, `${prefix}:peer`, redisPid);
      await peer.start();
      try {
        let n = LOADS.length;
        const result = await runPeerPairs({
          switchyard: async (rate, waitMs) => measureAt({ rate, perRequest: 1, label: `${rate}/s` }, n++, waitMs, waitMs < WAIT_MS ? PEER_MAXRATE_SECONDS : SECONDS),
          peer, slowCommitsUrl: dbUrl, rates: PEER_RATES, slowRates: PEER_SLOW_RATES, maxRates: PEER_MAXRATES, maxRateSeconds: PEER_MAXRATE_SECONDS,
          seconds: SECONDS, warmSeconds: WARM_SECONDS, rounds: PEER_ROUNDS,
        });
        peerSection = peerPairsSection(result, PEER_MAXRATE_SECONDS);
      } finally {
        await peer.stop();
      }
    }
    load!.close();
    load = undefined;

    // 3. Baseline: bare BullMQ add → Worker pickup on the same Redis, same rates, same counts,
    // with the runners and the matcher stopped so a backlog left by step 2 does not load the machine.
    for (const runner of runners) {
      await runner.stop();
      procs.splice(procs.indexOf(runner), 1);
    }
    await stopMatcher();
    await persisted();
    if (platform) {
      await platform.stop();
      procs.splice(procs.indexOf(platform), 1);
    }
    // One baseline per rate (a batched load of the same rate shares it).
    const baselines = new Map<number, number[]>();
    for (const m of measured) if (!baselines.has(m.rate)) baselines.set(m.rate, await bullmqBaseline(`${prefix}:base${m.rate}`, m.rate, m.total));

    // 4. What a wake-up costs on this machine: CPU per Redis round trip, back to back and after idleness.
    const wakeups = await roundTripCost(redis);

    const q = (values: number[]) => ({ p50: quantile(values, 0.5), p99: quantile(values, 0.99) });
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    const pgVersion = (await pg.query('SHOW server_version')).rows[0].server_version;
    const first = throughput[0];
    const command = ONE_PROCESS
      ? `\`BENCH_LAYOUT=one-process npm run bench:match\` (every service in one process, scripts/start-all.ts, what \`npm start\` runs, logging to a file, on the same cores as the load generator, Redis and PostgreSQL; the matcher throughput scenarios run only in the services layout)`
      : `\`npm run bench:match\` (gateway, event-log, matcher and ${RUNNERS === 1 ? 'a runner' : `${RUNNERS} runners`} as separate processes, each logging to a file, on the same cores as the load generator, Redis and PostgreSQL${NICE.size > 0 ? `; priorities BENCH_NICE=${process.env.BENCH_NICE}` : ''}${PG_SETTINGS.length > 0 ? `; database settings BENCH_PG_SETTINGS=${process.env.BENCH_PG_SETTINGS}` : ''})`;
    const throughputPart = first
      ? `Matcher throughput: enabled agents inserted with SQL before the matcher starts; ${MATCHING} of them match every fact (\`load.fact\`, \`load.*\`, \`*.fact\`), the rest have triggers on other kinds (\`other<i>.done\`, \`other<i>.*\`, \`*.x<i>\`). The matcher is SIGSTOPped, ${fmt(FACTS)} facts are posted in batches of 100 and persisted by the event-log, then it is SIGCONTed and timed until every run is recorded (then its saved cursor, \`consumer_cursors\`, is checked to reach the last seq). The first scenario is run once before, not recorded, to warm up the other services and PostgreSQL (cold, they halved the first scenario's figure). Each fact makes ${MATCHING} runs (the matcher's history check, run INSERT, BullMQ job and \`agent.run.queued\` fact for each).

| enabled agents | facts/s matched | runs created | ratio to ${fmt(first.agents)} agents | matcher start (load agents → ready) |
|---:|---:|---:|---:|---:|
${throughput.map((t) => `| ${fmt(t.agents)} | ${fmt(t.factsPerSecond)} | ${fmt(t.runs)} | ${fmt(t.factsPerSecond / first.factsPerSecond, 2)} | ${fmt(t.loadMs)} ms |`).join('\n')}

`
      : '';
    const body = `## Match${ONE_PROCESS ? ', one process' : ''} (\`${ONE_PROCESS ? 'BENCH_LAYOUT=one-process ' : ''}npm run bench:match\`)

- Date: ${new Date().toISOString().slice(0, 10)}
- Machine: ${machineLine(`Redis ${redisVersion}, PostgreSQL ${pgVersion}`)}
- Command: ${command}

${throughputPart}Fact published → run started, open loop for ${SECONDS} s at each load (a fact to a request, unless it says how many to a request) after ${WARM_SECONDS} s of the same load as a warm-up (then the tables are analyzed, as autovacuum keeps them on a live system), one matching scripted agent (\`stepMs\` 0, \`flow.concurrency\` 10), ${ONE_PROCESS ? 'the runner in the platform\'s one process' : RUNNERS === 1 ? 'one runner process' : `${RUNNERS} runner processes`}; each run goes through the agent loop (a one-step script). "Published" is the XADD time of the fact's \`facts\` entry (its id's milliseconds); "started" is \`runs.started_at\` (PostgreSQL \`now()\` of the runner's claim); same machine clock, millisecond resolution. Each run also records \`agent.run.queued|started|completed\`, which go through the event-log and the matcher too: 4 facts per posted fact.

| rate | path | measured | p50 | p99 |
|---:|---|---:|---:|---:|
${measured.map((m) => {
  const lat = { start: q(m.toStart), accept: q(m.fromAccept), queued: q(m.toQueued), base: q(baselines.get(m.rate)!) };
  return [
    `| ${m.label} | fact published on \`facts\` → run started (${fmt(m.started)} of ${fmt(m.published)} started within ${fmt(WAIT_MS / 1000)} s of the load's end${m.started < m.published ? '; the others count as started then, so these are lower bounds' : ''}) | ${fmt(m.toStart.length)} | ${fmt(lat.start.p50)} ms | ${fmt(lat.start.p99)} ms |`,
    `| | of which published → run queued (\`runs.queued_at\`, matcher) | ${fmt(m.toQueued.length)} | ${fmt(lat.queued.p50)} ms | ${fmt(lat.queued.p99)} ms |`,
    `| | gateway accept (\`fact.ts\`) → run started | ${fmt(m.fromAccept.length)} | ${fmt(lat.accept.p50)} ms | ${fmt(lat.accept.p99)} ms |`,
    `| | baseline, same run (${ONE_PROCESS ? 'the platform' : 'runners and matcher'} stopped): bare BullMQ \`queue.add\` → Worker process start, in-process worker, concurrency 10 | ${fmt(baselines.get(m.rate)!.length)} | ${fmt(lat.base.p50, 1)} ms | ${fmt(lat.base.p99, 1)} ms |`,
  ].join('\n');
}).join('\n')}

Ratios: ${first ? `throughput with ${fmt(throughput.at(-1)!.agents)} agents is ${fmt(throughput.at(-1)!.factsPerSecond / first.factsPerSecond, 2)} of that with ${fmt(first.agents)}; ` : ''}${measured.map((m) => `at ${m.label} published → started p50 is ${fmt(q(m.toStart).p50 / Math.max(q(baselines.get(m.rate)!).p50, 0.1), 1)}× the bare BullMQ pickup`).join('; ')}.

CPU while each load was offered, in % of one core (of ${os.cpus().length}), per process group (read from \`/proc\`; PostgreSQL is the bench database's backends, the load generator is this process):

| rate | ${Object.keys(measured[0]?.cpu ?? {}).join(' | ')} | total | platform CPU per activated run (runs completed in the window) |
|---:|${Object.keys(measured[0]?.cpu ?? {}).map(() => '---:').join('|')}|---:|---:|
${measured.map((m) => `| ${m.label} | ${Object.values(m.cpu).map((v) => `${fmt(v)} %`).join(' | ')} | ${fmt(Object.values(m.cpu).reduce((a, b) => a + b, 0))} % | ${m.cpuPerRunMs === null ? 'n/a' : `${m.cpuPerRunMs.toFixed(2)} ms (${fmt(m.ended)})`} |`).join('\n')}

Wake-ups per activated run in the same windows: each group's voluntary context switches (every thread, from \`/proc\`) over the runs completed — how often a process slept and was woken (by a socket, a timer), which on a virtual machine costs more CPU than a small message's work, and which varies less from run to run than CPU time:

| rate | ${Object.keys(measured[0]?.cpu ?? {}).join(' | ')} | platform total |
|---:|${Object.keys(measured[0]?.cpu ?? {}).map(() => '---:').join('|')}|---:|
${measured.map((m) => `| ${m.label} | ${m.wakeupsPerRun ? `${Object.values(m.wakeupsPerRun).map((v) => v.toFixed(1)).join(' | ')} | ${Object.entries(m.wakeupsPerRun).filter(([group]) => group !== 'load generator').reduce((sum, [, v]) => sum + v, 0).toFixed(1)}` : 'n/a'} |`).join('\n')}

${measured.some((m) => m.requests) ? `Requests each service made per activated run in the same windows (BENCH_ROUND_TRIPS=1: a hook in each service counts what it writes to Redis, by command, a Lua script by its name; to PostgreSQL, by prepared statement; and its other TCP writes, e.g. the parts of HTTP answers), over the runs completed:

${measured.map((m) => `${m.label}:

| service | per store | most frequent |
|---|---|---|
${roundTripRows(m.requests ?? {}, Math.max(1, m.ended)).join('\n')}`).join('\n\n')}

` : ''}${measured.some((m) => m.pgPerRun) ? `PostgreSQL's work per activated run (BENCH_PG_STATS=1), from the bench database's statistics read before the load and 11 s after its runs ended, over the runs completed (transactions include the bench's own polling; rows are \`table.ins|upd|del\`; function calls need \`track_functions\`):

${measured.map((m) => `- ${m.label}: ${(m.pgPerRun ?? []).filter(([, v]) => v >= 0.05).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`).join('\n')}

` : ''}CPU time of one Redis \`PING\` round trip, same run (the load stopped), by the idle time before it — the price of waking a process up on this machine, paid by every hop of a fact through the services when they are not already busy:

| idle before each round trip | client CPU per round trip | Redis CPU per round trip |
|---:|---:|---:|
${wakeups.map((w) => `| ${w.gapMs === 0 ? 'none (back to back)' : `${w.gapMs} ms`} | ${fmt(w.clientUs)} µs | ${fmt(w.serverUs)} µs |`).join('\n')}

${peerSection}
Targets (issue 3): throughput nearly independent of the number of non-matching agents; fact → run started p50 ≤ 10 ms and p99 ≤ 100 ms at 200 facts/s. ${measured.map((m) => {
  const { p50, p99 } = q(m.toStart);
  return `At ${m.label}: p50 ${p50 <= 10 ? 'met' : 'not met'}, p99 ${p99 <= 100 ? 'met' : 'not met'}.`;
}).join(' ')}
`;
    writeSection(ONE_PROCESS ? 'bench:match:one-process' : 'bench:match', body);
    console.log(body);
  } finally {
    load?.close();
    matcher?.child.kill('SIGCONT');
    await Promise.all(procs.map((p) => p.stop()));
    await pg.end();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await closeRedis(redis);
    // BENCH_KEEP_DB=1 leaves the database for a look at its runs (drop it by hand after).
    if (process.env.BENCH_KEEP_DB === '1') console.log(`kept database ${dbUrl}`);
    else await dropDatabase(dbUrl);
  }
}

/** auto_explain in every new session of the database, for a sample of its statements. */
const EXPLAIN_SETTINGS = ["session_preload_libraries = 'auto_explain'", 'auto_explain.log_min_duration = 0', 'auto_explain.sample_rate = 0.05'];

/** Sets `settings` on the database for every new session of it. */
async function setDatabase(dbUrl: string, settings: readonly string[]): Promise<void> {
  if (settings.length === 0) return;
  const client = new Client({ connectionString: dbUrl });
  await client.connect();
  const name = new URL(dbUrl).pathname.slice(1);
  try {
    for (const setting of settings) await client.query(`ALTER DATABASE "${name}" SET ${setting}`);
  } finally {
    await client.end();
  }
}

/** add → process-start latencies (ms) of a bare BullMQ queue and worker at `perSecond`, open loop. */
async function bullmqBaseline(prefix: string, perSecond: number, total: number): Promise<number[]> {
  const connection = createRedis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConnection = createRedis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue<{ t: number }>('baseline', { connection, prefix, defaultJobOptions: { removeOnComplete: true } });
  const latencies: number[] = [];
  let measuring = false;
  let done = 0;
  const worker = new Worker<{ t: number }>('baseline', async (job) => {
    if (measuring) latencies.push(performance.now() - job.data.t);
    done += 1;
  }, { connection: workerConnection, prefix, concurrency: 10 });
  try {
    await worker.waitUntilReady();
    const run = async (count: number) => {
      const started = performance.now();
      const adds: Promise<unknown>[] = [];
      for (let i = 0; i < count; i++) {
        const wait = started + (i * 1000) / perSecond - performance.now();
        if (wait > 1) await sleep(wait);
        adds.push(queue.add('job', { t: performance.now() }));
      }
      await Promise.all(adds);
    };
    await run(perSecond); // warm-up
    await waitUntil('baseline warm-up processed', async () => done >= perSecond);
    measuring = true;
    await run(total);
    await waitUntil('baseline processed', async () => latencies.length >= total);
    return latencies;
  } finally {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    await closeRedis(connection);
    await closeRedis(workerConnection);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
