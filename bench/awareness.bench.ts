/**
 * `npm run bench:awareness`: post → observed latency of peer notes (issue 34)
 * at 500 notes/s offered (open loop): from the moment a note is sent to the
 * moment it is visible on the read API (a client paging `since=`) and on the
 * SSE projection. Baseline in the same run: a bare XADD → blocking XREAD of
 * the same payloads at the same rate, no services. Writes its section of
 * BENCHMARKS.md.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createRedis } from '@switchyard/redis';
import { spawnService } from '@switchyard/testing';
import { benchServices } from './lib/bench-services';
import { HttpLoad } from './lib/http-load';
import { machineLine, writeSection } from './lib/report';
import { fmt, quantile } from './lib/stats';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RATE = Number(process.env.BENCH_NOTES_PER_SECOND ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WS = '/v1/workspaces/bench';
/** Requests of each closed-loop capacity run. */
const CAPACITY = Number(process.env.BENCH_CAPACITY ?? 3_000);

const envelope = (n: number) => {
  const now = Date.now();
  return JSON.stringify({
    schema: 'agent-message/v1',
    messageId: `bench-${String(n).padStart(8, '0')}`,
    senderSeq: n,
    thread: `thread-${n % 8}`,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 3_600_000).toISOString(),
    topic: 'bench',
    content: `Note ${n}: the integration test fails only when Redis restarts; a warm cache hides it.`,
    deliveryMode: 'shadow',
    canAuthorizeActions: false,
  });
};

const summary = (values: number[]) => ({ n: values.length, p50: quantile(values, 0.5), p95: quantile(values, 0.95), p99: quantile(values, 0.99) });

/** Reads an SSE response, calling `onEvent` with each frame's data and its arrival time. */
async function readSse(url: string, token: string, onEvent: (data: string, at: number) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      const at = performance.now();
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (data && frame.includes('event: observation')) onEvent(data.slice(6), at);
      }
    }
  } catch {
    // Aborted at the end.
  }
}

async function main(): Promise<void> {
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_aw_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const prefix = `bench${randomUUID().slice(0, 8)}`;
  const env = { DATABASE_URL: dbUrl, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn', PORT: '0', RATE_LIMIT_PER_SECOND: '1000000', GATEWAY_HEALTH_PORT: '0' };
  const redis = createRedis(REDIS_URL);
  const procs = benchServices(`database ${dbUrl}, Redis keys ${prefix}:*`);
  const stop = new AbortController();
  try {
    const token = (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', 'bench'], { cwd: ROOT, env: { ...process.env, ...env } })).stdout.trim().split('\n').at(-1)!;
    const gateway = await spawnService('gateway', { ...env, LOG_LEVEL: 'info' }, { readyPattern: /gateway listening/, output: 'file' });
    procs.push(gateway);
    const base = `http://127.0.0.1:${/"port":(\d+)/.exec(gateway.output())![1]}`;
    const load = new HttpLoad(base, { authorization: `Bearer ${token}` }, 32);
    const expect202 = (status: number) => {
      if (status !== 202) throw new Error(`unexpected status ${status}`);
    };
    // Warm-up: JIT, pools, token cache.
    await load.closedLoop(4, `${WS}/agent-messages`, (() => { let w = 0; return () => (w < 300 ? envelope(1_000_000 + w++) : undefined); })(), expect202);

    const total = RATE * SECONDS;
    const sentAt = new Map<string, number>();
    const onSse: number[] = [];
    const onRead: number[] = [];
    const seenSse = new Set<string>();
    const seenRead = new Set<string>();
    // Both readers start from where the plane is now, before the first note is sent.
    const health = (await (await fetch(`${base}${WS}/agent-messages/health`, { headers: { authorization: `Bearer ${token}` } })).json()) as { totals: { lastSeq: number } };
    const startSeq = health.totals.lastSeq;
    void readSse(`${base}${WS}/agent-messages/stream?since=${startSeq}`, token, (data, at) => {
      const { messageId } = JSON.parse(data) as { messageId: string };
      const sent = sentAt.get(messageId);
      if (sent !== undefined && !seenSse.has(messageId)) {
        seenSse.add(messageId);
        onSse.push(at - sent);
      }
    }, stop.signal);
    // The read-API client: pages `since=` as fast as answers come, 5 ms apart when nothing is new.
    const reader = (async () => {
      let since = startSeq;
      while (!stop.signal.aborted && seenRead.size < total) {
        const page = (await (await fetch(`${base}${WS}/agent-messages?since=${since}&limit=500`, { headers: { authorization: `Bearer ${token}` } })).json()) as { observations: { messageId: string }[]; next: number };
        const at = performance.now();
        for (const o of page.observations) {
          const sent = sentAt.get(o.messageId);
          if (sent !== undefined && !seenRead.has(o.messageId)) {
            seenRead.add(o.messageId);
            onRead.push(at - sent);
          }
        }
        since = page.next;
        if (page.observations.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // Post → 202 apart: the write path's share of post → observed.
    const onAccepted: number[] = [];
    await load.openLoop(RATE, total, `${WS}/agent-messages`, (i) => {
      sentAt.set(`bench-${String(i).padStart(8, '0')}`, performance.now());
      return envelope(i);
    }, (status, i) => {
      expect202(status);
      onAccepted.push(performance.now() - sentAt.get(`bench-${String(i).padStart(8, '0')}`)!);
    });
    const deadline = Date.now() + 30_000;
    while ((seenSse.size < total || seenRead.size < total) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    await reader;

    // Capacity, closed loop, beside the gateway's fact door in the same run (one fact per request; no event-log runs,
    // so facts stop in `ingest`: the door's own cost, which a note's screening and commit are compared with).
    let c = 0;
    const capacityNotesMs = await load.closedLoop(16, `${WS}/agent-messages`, () => (c < CAPACITY ? envelope(2_000_000 + c++) : undefined), expect202);
    let f = 0;
    const fact = () => JSON.stringify({ kind: 'bench.fact', subject: { type: 'bench', id: String(f) }, payload: { i: f++, note: 'the integration test fails only when Redis restarts' } });
    const capacityFactsMs = await load.closedLoop(16, `${WS}/events`, () => (f < CAPACITY ? fact() : undefined), expect202);
    load.close();
    const baseline = await bareStreamBaseline(redis, `${prefix}:bare`, total);
    const sse = summary(onSse);
    const read = summary(onRead);
    const accepted = summary(onAccepted);
    const bare = summary(baseline);
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    const body = `## Peer notes (\`npm run bench:awareness\`)

- Date: ${new Date().toISOString().slice(0, 10)}
- Machine: ${machineLine(`Redis ${redisVersion}`)}; load average during the run ${os.loadavg().map((n) => n.toFixed(1)).join(', ')} (1/5/15 min) — other engineers' suites share these 2 cores
- Command: \`npm run bench:awareness\` (${fmt(total)} notes offered at ${RATE}/s, open loop, from 32 keep-alive sockets; one gateway process on the same 2 cores as the load generator, PostgreSQL and Redis; SSE polls PostgreSQL every 100 ms, the default)

Post → observed: from the note's send to its arrival on each read surface.

| surface | notes seen | p50 | p95 | p99 |
|---|---:|---:|---:|---:|
| read API (\`GET /agent-messages?since=\`, paged as answers come) | ${read.n} | ${fmt(read.p50, 1)} ms | ${fmt(read.p95, 1)} ms | ${fmt(read.p99, 1)} ms |
| SSE projection (\`/agent-messages/stream\`) | ${sse.n} | ${fmt(sse.p50, 1)} ms | ${fmt(sse.p95, 1)} ms | ${fmt(sse.p99, 1)} ms |
| write path alone: post → \`202\` (note committed) | ${accepted.n} | ${fmt(accepted.p50, 1)} ms | ${fmt(accepted.p95, 1)} ms | ${fmt(accepted.p99, 1)} ms |
| baseline: bare XADD → XREAD BLOCK of the same payloads, same rate, no services | ${bare.n} | ${fmt(bare.p50, 1)} ms | ${fmt(bare.p95, 1)} ms | ${fmt(bare.p99, 1)} ms |

Capacity, closed loop (16 keep-alive clients, ${fmt(CAPACITY)} requests each): ${fmt((CAPACITY * 1000) / capacityNotesMs)} notes/s observed (202) beside ${fmt((CAPACITY * 1000) / capacityFactsMs)} facts/s accepted by \`POST /events\` (one fact per request) in the same run: ${fmt(capacityNotesMs > 0 ? capacityFactsMs / capacityNotesMs : 0, 2)} of the fact door's rate.

Ratios of p95 to the bare baseline's: read API ${fmt(read.p95 / Math.max(bare.p95, 0.001), 1)}×, SSE ${fmt(sse.p95 / Math.max(bare.p95, 0.001), 1)}×. Targets (issue 34): p95 ≤ 100 ms (the ADR asks 10 s) and ≤ 5× the bare baseline's p95.
`;
    writeSection('bench:awareness', body);
    console.log(body);
  } finally {
    stop.abort();
    await Promise.all(procs.map((p) => p.stop()));
    for (const key of await redis.keys(`${prefix}:*`)) await redis.del(key);
    await closeRedis(redis);
    await dropDatabase(dbUrl);
  }
}

/** The same payloads at the same rate through a bare Redis stream: XADD, and a blocking XREAD on a second connection. */
async function bareStreamBaseline(redis: ReturnType<typeof createRedis>, key: string, total: number): Promise<number[]> {
  const reader = redis.duplicate();
  const latencies: number[] = [];
  const sentAt: number[] = [];
  const reading = (async () => {
    let last = '$';
    while (latencies.length < total) {
      const reply = (await reader.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', key, last)) as [string, [string, string[]][]][] | null;
      const at = performance.now();
      for (const [id, fields] of reply?.[0]?.[1] ?? []) {
        last = id;
        latencies.push(at - sentAt[Number(fields[1])]!);
      }
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = performance.now();
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sentAt[i] = performance.now();
    writes.push(redis.xadd(key, '*', 'i', String(i), 'm', envelope(i)));
  }
  await Promise.all(writes);
  await reading;
  reader.disconnect();
  return latencies;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
