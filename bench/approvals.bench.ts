/**
 * `npm run bench:approvals`: what governed autonomy costs (decision 0025).
 *
 * 1. Parking: `BENCH_PARK_RUNS` runs (one each of as many agents, all services up) are queued
 *    at once; each calls a guarded tool in mode `default`, so each parks. Reported: the time
 *    until all are `awaiting_approval`, and how many were lost (anything else).
 *    The CPU each process spent meanwhile says where parking's cost goes.
 * 2. Resume latency, one decision at a time over `BENCH_DECISIONS` parked runs: decision `POST`
 *    → the approved call reaching the MCP server (the test server's arrival time), split by the
 *    times the platform records on the way: the decision committed (`approvals.decided_at`), the
 *    resumed run claimed (`runs.started_at`), the approved call marked executing
 *    (`approvals.execution_started_at`, right before the runner sends it). On a build whose
 *    runner does not park, measured up to the claim on runs written as a park leaves them.
 *    Baseline in the same run: a bare BullMQ `add` → Worker pickup on the same Redis.
 * Writes its section of BENCHMARKS.md, with the load average at the start and the end.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { Client } from 'pg';
import { AGENT_SPEC_SCHEMA_VERSION, AgentSpecSchema } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createActivationQueue, createRedis, duplicateRedis } from '@switchyard/redis';
import { RunWaker } from '@switchyard/runs';
import { insertApproval, spawnService, startTestMcpServer, type ServiceProcess } from '@switchyard/testing';
import { benchServices } from './lib/bench-services';
import { CpuWindow } from './lib/process-cpu';
import { fmt, quantile } from './lib/stats';
import { machineLine, writeSection } from './lib/report';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Runs queued at once in the parking phase (one agent each). */
const PARK_RUNS = Number(process.env.BENCH_PARK_RUNS ?? 1000);
/** Decisions timed one after another. */
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 500);
/** The parking target of issue 15. */
const PARK_TARGET_MS = 5_000;
/** Longest wait for the parking phase. */
const PARK_WAIT_MS = Number(process.env.BENCH_PARK_WAIT_MS ?? 300_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, intervalMs = 2): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
  return true;
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const prefix = `bench${randomUUID().slice(0, 8)}`;
  const mcp = await startTestMcpServer();
  const env = {
    DATABASE_URL: dbUrl, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'info', PORT: '0', RATE_LIMIT_PER_SECOND: '1000000',
    GATEWAY_HEALTH_PORT: '0', EVENT_LOG_HEALTH_PORT: '0', RUNNER_HEALTH_PORT: '0', APPROVALS_HEALTH_PORT: '0',
    RUNNER_MCP_ALLOW_PRIVATE: 'true', RUNNER_CONCURRENCY: '100',
  };
  const redis = createRedis(REDIS_URL);
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  const procs = benchServices(`database ${dbUrl}, Redis keys ${prefix}:*`);
  const spawned = new Map<string, ServiceProcess>();
  const spawn = async (name: string, extra: Record<string, string> = {}, ready?: RegExp) => {
    const proc: ServiceProcess = await spawnService(name, { ...env, ...extra }, { output: 'file', timeoutMs: 120_000, ...(ready ? { readyPattern: ready } : {}) });
    procs.push(proc);
    spawned.set(name, proc);
    return proc;
  };
  const activations = createActivationQueue(redis, prefix);
  try {
    const token = (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', 'bench'], { cwd: ROOT, env: { ...process.env, ...env } })).stdout.trim().split('\n').at(-1)!;
    const workspaceId = (await pg.query('SELECT id::text AS id FROM workspaces WHERE slug = $1', ['bench'])).rows[0].id as string;
    const userId = (await pg.query('SELECT user_id::text AS id FROM api_tokens WHERE workspace_id = $1', [workspaceId])).rows[0].id as string;
    await spawn('event-log', { EVENT_LOG_CONSUMER: 'el-bench' });
    const gateway = await spawn('gateway', {}, /gateway listening/);
    const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())![1];
    const gatewayUrl = `http://127.0.0.1:${port}`;
    await spawn('approvals', { APPROVALS_CONSUMER: 'a-bench' }, /approvals started/);
    await spawn('runner', { RUNNER_NAME: 'r-bench', PLATFORM_MCP_URL: `${gatewayUrl}/mcp` }, /runner started/);

    // One agent per run: each run has a lane of its own, so all can park at once.
    const agentIds = Array.from({ length: Math.max(PARK_RUNS, DECISIONS) }, () => newId());
    const spec = (name: string) =>
      JSON.stringify(
        AgentSpecSchema.parse({
          name,
          instructions: 'Call the tool, then finish.',
          model: { provider: 'scripted', name: 'script' },
          // `fail` carries no annotations: guarded (MCP's destructiveHint default), so mode `default` asks.
          script: [{ tool: 'web.fail', arguments: { message: '{{input}}' } }, { say: 'done' }],
          tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
          triggers: [{ kind: 'bench.never' }],
          permissionMode: 'default',
        }),
      );
    await pg.query(
      `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at)
       SELECT id, $1::uuid, 'a-' || ord, 1, true, $2::uuid, now() FROM unnest($3::uuid[]) WITH ORDINALITY AS v(id, ord)`,
      [workspaceId, userId, agentIds],
    );
    await pg.query(
      `INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by)
       SELECT id, 1, $1, $2::jsonb, $3::uuid FROM unnest($4::uuid[]) AS v(id)`,
      [AGENT_SPEC_SCHEMA_VERSION, spec('bench'), userId, agentIds],
    );
    /** Manual runs queued as the gateway queues them (their input is their index), one per agent. */
    const queueRuns = async (agents: readonly string[], status = 'queued') => {
      const ids = agents.map(() => newId());
      await pg.query(
        // No lane: the runs trigger puts each in its agent's lane.
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, queued_at)
         SELECT id, $1::uuid, agent, 1, 'manual', jsonb_build_object('type', 'manual', 'input', ord::text, 'userId', $2::text), $3::"RunStatus", gen_random_uuid(), now()
         FROM unnest($4::uuid[], $5::uuid[]) WITH ORDINALITY AS v(id, agent, ord)`,
        [workspaceId, userId, status, ids, agents],
      );
      return ids;
    };
    const statusCounts = async (ids: readonly string[]) =>
      Object.fromEntries((await pg.query(`SELECT status::text, count(*)::int AS n FROM runs WHERE id = ANY($1) GROUP BY 1`, [ids])).rows.map((r) => [r.status, r.n])) as Record<string, number>;

    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? 0);
    const cpuGroups = async (): Promise<Record<string, number[]>> => ({
      ...Object.fromEntries([...spawned].map(([name, proc]) => [name, [proc.child.pid!]])),
      PostgreSQL: (await pg.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
      Redis: redisPid ? [redisPid] : [],
      'this process (the MCP test server, polling)': [process.pid],
    });

    // 1. Parking.
    const parkIds = await queueRuns(agentIds.slice(0, PARK_RUNS));
    const parkCpu = await new CpuWindow(cpuGroups).start();
    const sessionsBeforePark = mcp.sessionsOpened();
    const parkStart = performance.now();
    const parkStartedAt = Date.now();
    await new RunWaker(activations, console).wake(parkIds.map((runId, i) => ({ runId, workspaceId, agentId: agentIds[i]! })));
    // Settled: every run parked or ended (a run whose park failed goes on without the call, and completes).
    const settled = await waitUntil('every run parked or ended', async () => {
      const counts = await statusCounts(parkIds);
      return (counts.queued ?? 0) + (counts.running ?? 0) === 0;
    }, PARK_WAIT_MS, 20);
    const parkMs = performance.now() - parkStart;
    const parkCpuShares = await parkCpu.end();
    const parkCpuMs = Object.fromEntries(Object.entries(parkCpuShares).map(([group, pct]) => [group, (pct / 100) * parkMs]));
    const parkCounts = await statusCounts(parkIds);
    const parkSessions = mcp.sessionsOpened() - sessionsBeforePark;
    const parked = parkCounts.awaiting_approval ?? 0;
    const lastPark = (await pg.query(`SELECT max(requested_at) AS at FROM approvals WHERE run_id = ANY($1)`, [parkIds])).rows[0].at as Date | null;
    const lastParkMs = lastPark ? lastPark.getTime() - parkStartedAt : NaN;
    const runnerParks = parked > 0;

    // 2. Decisions, one at a time, on runs parked by the runner, or else written as a park leaves them.
    let decisionRuns: string[];
    if (runnerParks) {
      decisionRuns = parkIds.filter(Boolean).slice(0, DECISIONS);
    } else {
      decisionRuns = await queueRuns(agentIds.slice(0, DECISIONS).map((id) => id), 'awaiting_approval');
      for (const [i, runId] of decisionRuns.entries()) await insertApproval(pg, { workspaceId, runId, agentId: agentIds[i]! });
    }
    const approvals = (await pg.query(`SELECT id::text, run_id::text FROM approvals WHERE run_id = ANY($1) AND status = 'pending'`, [decisionRuns])).rows as Array<{ id: string; run_id: string }>;
    const inputOf = new Map((await pg.query(`SELECT id::text, origin->>'input' AS input FROM runs WHERE id = ANY($1)`, [decisionRuns])).rows.map((r) => [r.id, r.input as string]));
    const toCall: number[] = [];
    const answered: number[] = [];
    const decidedAt = new Map<string, number>();
    const callAt = new Map<string, number>();
    let missing = 0;
    const sessionsBeforeDecisions = mcp.sessionsOpened();
    for (const approval of approvals) {
      const input = inputOf.get(approval.run_id)!;
      const before = mcp.calls.length;
      const t0 = Date.now();
      decidedAt.set(approval.run_id, t0);
      const response = await fetch(`${gatewayUrl}/v1/workspaces/bench/approvals/${approval.id}/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      if (response.status !== 200) throw new Error(`decision answered ${response.status}: ${await response.text()}`);
      answered.push(Date.now() - t0);
      if (!runnerParks) continue;
      const arrived = await waitUntil('the approved call', async () => mcp.calls.slice(before).some((call) => call.name === 'fail' && call.arguments.message === input), 10_000, 1);
      if (!arrived) {
        missing++;
        continue;
      }
      const call = mcp.calls.slice(before).find((c) => c.name === 'fail' && c.arguments.message === input)!;
      toCall.push(Date.parse(call.at) - t0);
      callAt.set(approval.run_id, Date.parse(call.at));
    }
    const sessionsAfterDecisions = mcp.sessionsOpened();
    await waitUntil('every resumed run claimed', async () => (await pg.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND started_at IS NULL`, [decisionRuns])).rows[0].n === 0, 60_000, 20);
    const claims = (await pg.query(`SELECT id::text, started_at FROM runs WHERE id = ANY($1) AND started_at IS NOT NULL`, [decisionRuns])).rows as Array<{ id: string; started_at: Date }>;
    const toClaim = claims.map((row) => row.started_at.getTime() - decidedAt.get(row.id)!).filter((ms) => Number.isFinite(ms));
    // Where the time goes, per resumed run: the times recorded on the way (one clock: this machine's).
    const legs = (
      await pg.query(
        `SELECT r.id::text AS id, a.decided_at, r.started_at, a.execution_started_at FROM runs r JOIN approvals a ON a.run_id = r.id
         WHERE r.id = ANY($1) AND a.decided_at IS NOT NULL AND r.started_at IS NOT NULL`,
        [decisionRuns],
      )
    ).rows as Array<{ id: string; decided_at: Date; started_at: Date; execution_started_at: Date | null }>;
    type Leg = (typeof legs)[number];
    const leg = (from: (row: Leg) => number | undefined, to: (row: Leg) => number | undefined) =>
      legs.map((row) => (to(row) ?? NaN) - (from(row) ?? NaN)).filter((ms) => Number.isFinite(ms));
    const breakdown: Array<[string, number[]]> = [
      ['POST → decision recorded (HTTP, auth, the decision transaction up to its update)', leg((row) => decidedAt.get(row.id), (row) => row.decided_at.getTime())],
      ['→ resumed run claimed (the rest of the transaction, commit, job added, worker pickup, claim)', leg((row) => row.decided_at.getTime(), (row) => row.started_at.getTime())],
      ['→ approved call marked executing (spec, transcript read and rebuilt, tools from the listing cache, approval read)', leg((row) => row.started_at.getTime(), (row) => row.execution_started_at?.getTime())],
      ['→ call arrives at the MCP server (the run\'s MCP session opened: initialize, initialized; then tools/call)', leg((row) => row.execution_started_at?.getTime(), (row) => callAt.get(row.id))],
    ];

    // Baseline: a bare BullMQ add → Worker pickup on the same Redis, one at a time.
    const baseline: number[] = [];
    const queueName = `bare-${randomUUID().slice(0, 8)}`;
    const bareQueue = new Queue(queueName, { connection: redis, prefix });
    let resolvePickup: ((at: number) => void) | undefined;
    const workerConnection = duplicateRedis(redis, { maxRetriesPerRequest: null });
    const worker = new Worker(queueName, async () => resolvePickup?.(Date.now()), { connection: workerConnection, prefix, concurrency: 1 });
    await worker.waitUntilReady();
    for (let i = 0; i < DECISIONS; i++) {
      const picked = new Promise<number>((resolve) => (resolvePickup = resolve));
      const t0 = Date.now();
      await bareQueue.add('bare', { i }, { removeOnComplete: true });
      baseline.push((await picked) - t0);
    }
    await worker.close();
    await bareQueue.close();
    await closeRedis(workerConnection);

    const p50 = (values: number[]) => quantile(values, 0.5);
    // The times are the platform's millisecond clock: a baseline under a millisecond has no ratio.
    const ratio = (values: number[]) => (p50(baseline) > 0 ? `${fmt(p50(values) / p50(baseline), 0)}× the baseline's p50` : `${fmt(p50(values))} ms against a baseline p50 under 1 ms`);
    const row = (label: string, values: number[]) => `| ${label} | ${fmt(values.length)} | ${fmt(quantile(values, 0.5), 1)} ms | ${fmt(quantile(values, 0.99), 1)} ms |`;
    const parking = runnerParks
      ? `${fmt(PARK_RUNS)} runs (one agent each, mode \`default\`, one guarded tool call each) queued at once: ${fmt(parked)} parked (MCP sessions opened meanwhile: ${fmt(parkSessions)}), the last ${fmt(lastParkMs)} ms after they were queued (target: all within ${fmt(PARK_TARGET_MS)} ms); ${settled ? `every run parked or ended within ${fmt(parkMs)} ms` : `not every run parked or ended within ${fmt(PARK_WAIT_MS)} ms`}; statuses after: ${JSON.stringify(parkCounts)}; not parked: ${fmt(PARK_RUNS - parked)}. CPU per parked run while they parked: ${Object.entries(parkCpuMs)
          .sort(([, a], [, b]) => b - a)
          .map(([group, ms]) => `${group} ${fmt(ms / PARK_RUNS, 1)} ms`)
          .join(', ')}.`
      : `Not measured: the runner of this build does not park runs (the ${fmt(PARK_RUNS)} runs ended ${JSON.stringify(parkCounts)}); the latency below was measured on runs written as a park leaves them.`;
    writeSection(
      'approvals',
      `## Approvals (\`npm run bench:approvals\`)

${machineLine('all services up (gateway, event-log, approvals, one runner with RUNNER_CONCURRENCY 100)')}, ${new Date().toISOString().slice(0, 10)}, load average (1 / 5 / 15 min) ${loadAtStart.map((n) => n.toFixed(1)).join(' / ')} at the start, ${os.loadavg().map((n) => n.toFixed(1)).join(' / ')} at the end. Command: \`BENCH_PARK_RUNS=${PARK_RUNS} BENCH_DECISIONS=${DECISIONS} npm run bench:approvals\`.

**Parking.** ${parking}

**Resume latency**, one decision at a time (\`POST …/approvals/{id}/decision\`, approve), over ${fmt(approvals.length)} parked runs:

| from the decision POST to | n | p50 | p99 |
|---|---|---|---|
${runnerParks ? `${row('**the approved call reaching the MCP server**', toCall)}\n` : ''}${row('its 200 answer (decision, fact and resume committed, job added)', answered)}
${row('the resumed run claimed by the runner (started_at)', toClaim)}
${row('baseline: bare BullMQ add → Worker pickup, same Redis', baseline)}
${runnerParks ? `\nPOST → call p50 is ${ratio(toCall)}. Approved calls that did not arrive within 10 s: ${fmt(missing)}. MCP sessions opened by the resumed runs: ${fmt(sessionsAfterDecisions - sessionsBeforeDecisions)}. Target: p50 ≤ 20 ms to the call.` : '\nThe call itself is not measured on this build (no resume in the runner).'}

Where the time goes, leg by leg (each leg's own p50/p99 over the resumed runs, from the times the platform records):

| leg | n | p50 | p99 |
|---|---|---|---|
${breakdown.map(([label, values]) => row(label, values)).join('\n')}
`,
    );
    console.log(`parking: ${parking}`);
    console.log(`decision answered p50 ${quantile(answered, 0.5)} ms`);
    console.log(`decision → call p50 ${quantile(toCall, 0.5)} ms, → claim p50 ${quantile(toClaim, 0.5)} ms, baseline p50 ${quantile(baseline, 0.5)} ms`);
    for (const [label, values] of breakdown) console.log(`  ${label}: p50 ${quantile(values, 0.5)} ms, p99 ${quantile(values, 0.99)} ms`);
  } finally {
    await activations.close();
    await Promise.all(procs.map((proc) => proc.stop('SIGTERM')));
    await mcp.close();
    await pg.end();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await closeRedis(redis);
    await dropDatabase(dbUrl);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
