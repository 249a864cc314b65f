/**
 * `npm run bench:time`: how late schedules fire (issue 30, decision 0048), and wait → resume
 * beside approval → resume at the command level (decision 0055, bench/lib/resume-paths.ts;
 * `BENCH_RESUMES` samples of each, interleaved; target: wait p50 within 1.2× approval p50).
 *
 * Each round, `BENCH_SCHEDULES` schedules (1,000) are all due at the same whole second, with a
 * real event-log process (its scheduler on its defaults) running. Reported per fire, from the
 * slot time: the fire committed (`schedule_fires.fired_at`, with the fact in the outbox) and
 * the fact stored by the event-log (`platform_events.recorded_at`, after the outbox relay).
 * Baseline in the same run, interleaved with the rounds: a bare `setTimeout` to the slot, then
 * one INSERT of as many rows (`clock_timestamp()` per row) on the same PostgreSQL.
 * Target: fact stored p99 ≤ 1 s with 1,000 due at once. Writes its section of BENCHMARKS.md.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { spawnService } from '@switchyard/testing';
import { benchServices } from './lib/bench-services';
import { fmt, quantile } from './lib/stats';
import { machineLine, writeSection } from './lib/report';
import { measureResumes } from './lib/resume-paths';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Schedules due at the same second, each round. */
const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
/** Rounds (and baseline rounds). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Wait → resume and approval → resume samples, each. */
const RESUMES = Number(process.env.BENCH_RESUMES ?? 500);
const TARGET_RESUME_RATIO = 1.2;
/** The issue's target for the fact stored, p99. */
const TARGET_P99_MS = 1000;
/** How far ahead of now a round's slot is set: the inserts land well before it. */
const LEAD_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextSlot = () => new Date(Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000);

/** Waits until `check` holds, polling; false past the deadline. */
async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** One scheduler round: SCHEDULES schedules due at one slot; the latencies of their fires and stored facts. */
async function schedulerRound(pg: Client, workspaceId: string, round: number): Promise<{ fired: number[]; stored: number[] }> {
  const slot = nextSlot();
  const kind = `bench.tick_${round}`;
  await pg.query(
    `INSERT INTO schedules (id, workspace_id, name, every_ms, timezone, enabled, emit, missed, anchor_at, next_fire_at)
     SELECT gen_random_uuid(), $1, $2 || '-' || n, 3600000, 'UTC', true, $3, 'skip', $4, $4 FROM generate_series(1, $5) AS n`,
    [workspaceId, `r${round}`, JSON.stringify({ kind, payload: {} }), slot, SCHEDULES],
  );
  const count = async () => Number((await pg.query(`SELECT count(*) AS n FROM platform_events WHERE kind = $1`, [kind])).rows[0].n);
  if (!(await waitUntil(async () => (await count()) >= SCHEDULES, 120_000))) throw new Error(`round ${round}: only ${await count()} of ${SCHEDULES} facts stored`);
  const ms = (column: string, sql: string) => pg.query(sql, [kind, slot]).then((r) => r.rows.map((row) => Number(row[column])));
  const fired = await ms('ms', `SELECT extract(epoch FROM f.fired_at - $2::timestamptz) * 1000 AS ms FROM schedule_fires f JOIN schedules s ON s.id = f.schedule_id WHERE s.emit->>'kind' = $1`);
  const stored = await ms('ms', `SELECT extract(epoch FROM recorded_at - $2::timestamptz) * 1000 AS ms FROM platform_events WHERE kind = $1`);
  return { fired, stored };
}

/** One baseline round: a bare setTimeout to the slot, then one INSERT of SCHEDULES rows. */
async function baselineRound(pg: Client): Promise<number[]> {
  const slot = nextSlot();
  await sleep(slot.getTime() - Date.now());
  await pg.query(`INSERT INTO bench_baseline (slot, recorded_at) SELECT $1, clock_timestamp() FROM generate_series(1, $2)`, [slot, SCHEDULES]);
  const { rows } = await pg.query(`SELECT extract(epoch FROM recorded_at - slot) * 1000 AS ms FROM bench_baseline WHERE slot = $1`, [slot]);
  return rows.map((row) => Number(row.ms));
}

const line = (what: string, values: number[]) => `| ${what} | ${fmt(values.length)} | ${fmt(quantile(values, 0.5))} | ${fmt(quantile(values, 0.99))} | ${fmt(Math.max(...values))} |`;

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const prefix = `bench${randomUUID().slice(0, 8)}`;
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  const procs = benchServices(`database ${dbUrl}, Redis keys ${prefix}:*`);
  try {
    const workspaceId = newId();
    await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'bench')`, [workspaceId]);
    await pg.query(`INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)`, [workspaceId]);
    await pg.query(`CREATE TABLE bench_baseline (slot timestamptz(3) NOT NULL, recorded_at timestamptz(3) NOT NULL)`);
    const env = { DATABASE_URL: dbUrl, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'info', EVENT_LOG_HEALTH_PORT: '0', EVENT_LOG_CONSUMER: 'el-bench', OPS_FACTS_ENABLED: 'false' };
    procs.push(await spawnService('event-log', env, { output: 'file', timeoutMs: 120_000 }));
    const fired: number[] = [];
    const stored: number[] = [];
    const baseline: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const result = await schedulerRound(pg, workspaceId, round);
      fired.push(...result.fired);
      stored.push(...result.stored);
      baseline.push(...(await baselineRound(pg)));
      console.log(`round ${round}: stored p99 ${fmt(quantile(result.stored, 0.99))} ms`);
    }
    const p99 = quantile(stored, 0.99);
    const resumes = await measureResumes(dbUrl, pg, workspaceId, RESUMES);
    const ratio = quantile(resumes.wait, 0.5) / quantile(resumes.approval, 0.5);
    const body = [
      '## Time (`npm run bench:time`)',
      '',
      `${machineLine(`PostgreSQL and Redis on 127.0.0.1, one event-log process (SCHEDULE_TICK_MS 200, SCHEDULE_BATCH 200)`)}; load average ${loadAtStart.map((n) => n.toFixed(2)).join(' ')} at the start, ${os.loadavg().map((n) => n.toFixed(2)).join(' ')} at the end.`,
      '',
      `Fire latency: ${fmt(SCHEDULES)} schedules due at the same second, ${ROUNDS} rounds; milliseconds from the slot time.`,
      '',
      '| what | fires | p50 ms | p99 ms | max ms |',
      '| --- | ---: | ---: | ---: | ---: |',
      line('fire committed (schedule_fires.fired_at, fact in the outbox)', fired),
      line('fact stored (platform_events.recorded_at, after the relay)', stored),
      line(`baseline: bare setTimeout + one INSERT of ${fmt(SCHEDULES)} rows`, baseline),
      '',
      `Target fact stored p99 ≤ ${fmt(TARGET_P99_MS)} ms: ${p99 <= TARGET_P99_MS ? 'met' : 'NOT met'} (${fmt(p99)} ms). The scheduler's floor is its tick (a slot waits up to SCHEDULE_TICK_MS for the next look); the baseline has none.`,
      '',
      `Resume latency, ${fmt(RESUMES)} samples of each, interleaved: the write that resumes a parked run until it is \`queued\` again (committed), in milliseconds; the Redis wake and the runner's claim after it are the same for both and not included.`,
      '',
      '| what | resumes | p50 ms | p99 ms | max ms |',
      '| --- | ---: | ---: | ---: | ---: |',
      line('approval → resume (ApprovalStore.decide)', resumes.approval),
      line('wait → resume (the fact appended, then the matcher\'s matchFacts)', resumes.wait),
      '',
      `Target wait p50 ≤ ${TARGET_RESUME_RATIO}× approval p50: ${ratio <= TARGET_RESUME_RATIO ? 'met' : 'NOT met'} (${fmt(ratio, 2)}×).`,
    ].join('\n');
    writeSection('time', body);
    console.log(body);
  } finally {
    await Promise.all(procs.map((p) => p.stop('SIGTERM')));
    await pg.end();
    await dropDatabase(dbUrl);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
