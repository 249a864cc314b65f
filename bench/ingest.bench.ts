/**
 * `npm run bench:ingest`: facts/s accepted and persisted end to end through
 * the gateway and event-log processes (one fact per request, and batches of
 * 100), and accept → published-on-`facts` latency at a fixed offered load.
 * Baselines in the same run: raw XADD + batched INSERT of the same facts with
 * no services, and a bare express handler parsing the same JSON. Writes its
 * section of BENCHMARKS.md.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createRedis } from '@switchyard/redis';
import { spawnService, type ServiceProcess } from '@switchyard/testing';
import { benchServices } from './lib/bench-services';
import { HttpLoad } from './lib/http-load';
import { fmt, quantile } from './lib/stats';
import { machineLine, writeSection } from './lib/report';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SINGLE = Number(process.env.BENCH_SINGLE ?? 4000);
const BATCHED = Number(process.env.BENCH_BATCHED ?? 40_000);
const CLIENTS = 16;

const fact = (i: number, kind = 'bench.fact') =>
  ({ kind, subject: { type: 'bench', id: String(i) }, payload: { i, note: 'scorecard sc_9 completed', failures: i % 7 } });

async function main(): Promise<void> {
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const prefix = `bench${randomUUID().slice(0, 8)}`;
  const env = { DATABASE_URL: dbUrl, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn', PORT: '0', RATE_LIMIT_PER_SECOND: '1000000', GATEWAY_HEALTH_PORT: '0', EVENT_LOG_HEALTH_PORT: '0' };
  const redis = createRedis(REDIS_URL);
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  const procs = benchServices(`database ${dbUrl}, Redis keys ${prefix}:*`);
  try {
    const token = (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', 'bench'], { cwd: ROOT, env: { ...process.env, ...env } })).stdout.trim().split('\n').at(-1)!;
    procs.push(await spawnService('event-log', { ...env, LOG_LEVEL: 'info' }));
    const gateway = await spawnService('gateway', { ...env, LOG_LEVEL: 'info' }, { readyPattern: /gateway listening/ });
    procs.push(gateway);
    const port = /"port":(\d+)/.exec(gateway.output())![1];
    const load = new HttpLoad(`http://127.0.0.1:${port}`, { authorization: `Bearer ${token}` }, CLIENTS);
    const expect202 = (status: number) => {
      if (status !== 202) throw new Error(`unexpected status ${status}`);
    };
    const persisted = async () => Number((await pg.query('SELECT count(*) FROM platform_events')).rows[0].count);
    const untilPersisted = async (target: number, since: number) => {
      while ((await persisted()) < target) await new Promise((r) => setTimeout(r, 10));
      return performance.now() - since;
    };

    // Warm-up: JIT, pools, token cache.
    let w = 0;
    await load.closedLoop(4, '/v1/workspaces/bench/events', () => (w < 300 ? JSON.stringify(fact(w++)) : undefined), expect202);
    await untilPersisted(300, 0);

    // A: one fact per request.
    let i = 0;
    let start = performance.now();
    const singleAcceptMs = await load.closedLoop(CLIENTS, '/v1/workspaces/bench/events', () => (i < SINGLE ? JSON.stringify(fact(i++)) : undefined), expect202);
    const singlePersistMs = await untilPersisted(300 + SINGLE, start);

    // B: batches of 100.
    let b = 0;
    start = performance.now();
    const batchAcceptMs = await load.closedLoop(4, '/v1/workspaces/bench/events:batch', () => {
      if (b >= BATCHED) return undefined;
      const events = Array.from({ length: 100 }, (_, k) => fact(b + k));
      b += 100;
      return JSON.stringify({ events });
    }, expect202);
    const batchPersistMs = await untilPersisted(300 + SINGLE + BATCHED, start);

    // C: accept → published latency at fixed offered loads, from the gateway's accept time (fact.ts)
    // to the XADD on `facts` (the entry id's milliseconds): both clocks are this machine's.
    const factsKey = `${prefix}:facts`;
    const latencyRun = async (kind: string, perSecond: number, perRequest: number, seconds: number) => {
      const lastId = ((await redis.xrevrange(factsKey, '+', '-', 'COUNT', 1))[0]?.[0]) ?? '0-0';
      const requests = Math.round((perSecond * seconds) / perRequest);
      const path = perRequest === 1 ? '/v1/workspaces/bench/events' : '/v1/workspaces/bench/events:batch';
      const body = (n: number) => (perRequest === 1 ? JSON.stringify(fact(n, kind)) : JSON.stringify({ events: Array.from({ length: perRequest }, (_, k) => fact(n * perRequest + k, kind)) }));
      await load.openLoop(perSecond / perRequest, requests, path, body, expect202);
      const expected = requests * perRequest;
      const latencies: number[] = [];
      let from = lastId;
      const deadline = Date.now() + 60_000;
      while (latencies.length < expected && Date.now() < deadline) {
        const entries = await redis.xrange(factsKey, `(${from}`, '+', 'COUNT', 5000);
        for (const [id, fields] of entries) {
          from = id;
          const message = JSON.parse(fields[1]!);
          if (message.fact.kind === kind) latencies.push(Number(id.split('-')[0]) - Date.parse(message.fact.ts));
        }
        if (entries.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      return { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), p99: quantile(latencies, 0.99), n: latencies.length };
    };
    const lat1000 = await latencyRun('bench.latency.batched', 1000, 10, 10);
    const lat200 = await latencyRun('bench.latency.single', 200, 1, 10);
    load.close();

    // Baseline 1: the same facts with no services: XADD (pipelined) then INSERT … unnest in batches of 500.
    const raw = await rawBaseline(redis, pg, `${prefix}:raw`, BATCHED);
    // Baseline 2: a bare express handler parsing the same JSON, same clients.
    const bareProc = await spawnBare();
    procs.push(bareProc.proc);
    const bareLoad = new HttpLoad(`http://127.0.0.1:${bareProc.port}`, {}, CLIENTS);
    let j = 0;
    const bareSingleMs = await bareLoad.closedLoop(CLIENTS, '/v1/workspaces/bench/events', () => (j < SINGLE ? JSON.stringify(fact(j++)) : undefined), expect202);
    let k = 0;
    const bareBatchMs = await bareLoad.closedLoop(4, '/v1/workspaces/bench/events:batch', () => {
      if (k >= BATCHED) return undefined;
      k += 100;
      return JSON.stringify({ events: Array.from({ length: 100 }, (_, n) => fact(k + n)) });
    }, expect202);
    bareLoad.close();

    const rate = (n: number, ms: number) => (n * 1000) / ms;
    const rows = {
      singleAccepted: rate(SINGLE, singleAcceptMs),
      singlePersisted: rate(SINGLE, singlePersistMs),
      batchAccepted: rate(BATCHED, batchAcceptMs),
      batchPersisted: rate(BATCHED, batchPersistMs),
      bareSingle: rate(SINGLE, bareSingleMs),
      bareBatch: rate(BATCHED, bareBatchMs),
      raw: rate(BATCHED, raw.totalMs),
    };
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    const pgVersion = (await pg.query('SHOW server_version')).rows[0].server_version;
    const body = `## Ingest (\`npm run bench:ingest\`)

- Date: ${new Date().toISOString().slice(0, 10)}
- Machine: ${machineLine(`Redis ${redisVersion}, PostgreSQL ${pgVersion}`)}
- Command: \`npm run bench:ingest\` (${SINGLE} single-fact requests from ${CLIENTS} keep-alive clients; ${BATCHED} facts in batches of 100 from 4 clients; gateway and event-log as separate processes on the same 2 cores as the load generator, Redis and PostgreSQL)

| scenario | facts/s accepted (HTTP 202) | facts/s persisted end to end | baseline, same run | ratio |
|---|---:|---:|---|---:|
| 1 fact per request | ${fmt(rows.singleAccepted)} | ${fmt(rows.singlePersisted)} | bare express parsing the same JSON: ${fmt(rows.bareSingle)} req/s | ${fmt(rows.singleAccepted / rows.bareSingle, 2)} of bare express |
| 100 facts per request | ${fmt(rows.batchAccepted)} | ${fmt(rows.batchPersisted)} | bare express: ${fmt(rows.bareBatch)} facts/s | ${fmt(rows.batchAccepted / rows.bareBatch, 2)} of bare express |
| persistence only | | ${fmt(rows.batchPersisted)} | raw XADD + INSERT … unnest (500/statement), no services: ${fmt(rows.raw)} facts/s | ${fmt(rows.batchPersisted / rows.raw, 2)} of raw |

Accept → published on \`facts\` (gateway accept time to the \`facts\` entry's XADD time), open-loop offered load:

| offered load | facts measured | p50 | p95 | p99 |
|---|---:|---:|---:|---:|
| 1,000 facts/s (100 req/s × 10 facts) | ${lat1000.n} | ${fmt(lat1000.p50)} ms | ${fmt(lat1000.p95)} ms | ${fmt(lat1000.p99)} ms |
| 200 facts/s (200 req/s × 1 fact) | ${lat200.n} | ${fmt(lat200.p50)} ms | ${fmt(lat200.p95)} ms | ${fmt(lat200.p99)} ms |

Targets (issue 2): ≥ 5,000 facts/s persisted; p99 ≤ 50 ms at 1,000 facts/s offered.
`;
    writeSection('bench:ingest', body);
    console.log(body);
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await pg.end();
    await redis.del(`${prefix}:raw`);
    for (const key of await redis.keys(`${prefix}:*`)) await redis.del(key);
    await closeRedis(redis);
    await dropDatabase(dbUrl);
  }
}

async function spawnBare(): Promise<{ proc: ServiceProcess; port: string }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-express.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.on('data', (d: Buffer) => resolve(JSON.parse(d.toString()).port)));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on('exit', (c, s) => resolve(s ?? c)));
  return { port, proc: { child, output: () => '', exited, stop: async () => (child.kill('SIGTERM'), exited) } };
}

/** The same work without the services: XADD the ingest messages, then INSERT them in batches. */
async function rawBaseline(redis: ReturnType<typeof createRedis>, pg: Client, stream: string, count: number) {
  const workspaceId = newId();
  const started = performance.now();
  const facts = Array.from({ length: count }, (_, i) => ({ id: newId(), ...fact(i), ts: new Date().toISOString() }));
  for (let i = 0; i < count; i += 500) {
    const pipeline = redis.pipeline();
    for (const f of facts.slice(i, i + 500)) pipeline.xadd(stream, '*', 'm', JSON.stringify(f));
    await pipeline.exec();
  }
  for (let i = 0; i < count; i += 500) {
    const chunk = facts.slice(i, i + 500);
    await pg.query(
      `INSERT INTO platform_events (id, workspace_id, seq, kind, subject_type, subject_id, payload, ts)
       SELECT id, $1::uuid, seq, kind, st, sid, payload::jsonb, ts FROM unnest($2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
         AS v(id, seq, kind, st, sid, payload, ts)`,
      [workspaceId, chunk.map((f) => f.id), chunk.map((_, n) => i + n + 1), chunk.map((f) => f.kind), chunk.map((f) => f.subject.type), chunk.map((f) => f.subject.id), chunk.map((f) => JSON.stringify(f.payload)), chunk.map((f) => f.ts)],
    );
  }
  return { totalMs: performance.now() - started };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
