/**
 * `npm run bench:loop`: the agent loop's own cost per step. A scripted agent
 * (zero-latency model) calls one tool per step on a local MCP server over
 * Streamable HTTP; the runner's AgentLoop runs it with its real stores
 * (transcript and run ledger in PostgreSQL, mailbox in Redis). The baseline,
 * in the same run and alternating with it, makes the same model and tool
 * calls in a bare loop: the same ScriptedModel, the same tool host, nothing
 * else. The difference is what the platform adds per step (the stop check,
 * the transcript write, the mailbox drain, message building). Writes its
 * section of BENCHMARKS.md.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AgentSpecSchema, type AgentSpec } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, SqlPool, withDatabaseName } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { closeRedis, createRedis } from '@switchyard/redis';
import { startTestMcpServer } from '@switchyard/testing';
import { RedisMailbox } from '../services/runner/src/adapters/redis-mailbox';
import { SqlRunContextStore } from '../services/runner/src/adapters/sql-run-context';
import { SqlRunQueue, SqlSpendLedger } from '@switchyard/runs';
import { SqlRunReads } from '../services/runner/src/adapters/sql-run-reads';
import { SqlTranscriptStore } from '../services/runner/src/adapters/sql-transcript-store';
import { AgentLoop } from '../services/runner/src/loop/agent-loop';
import type { Model } from '../services/runner/src/model/model';
import { createPriceTable } from '../services/runner/src/model/prices';
import { ScriptedModel } from '../services/runner/src/model/scripted-model';
import { connectTools, type ToolHost } from '../services/runner/src/tools';
import { machineLine, writeSection } from './lib/report';
import { fmt, quantile } from './lib/stats';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Runs of each kind; each run is STEPS tool steps and a final answer. */
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const STEPS = 49;

const log = createLogger({ service: 'bench-loop', level: 'warn' });

/** Records when each model call starts: a step is the time between two calls. */
class TimedModel implements Model {
  readonly calls: number[] = [];
  constructor(private readonly inner: Model) {}
  complete(input: Parameters<Model['complete']>[0]) {
    this.calls.push(performance.now());
    return this.inner.complete(input);
  }
}

const stepsOf = (calls: readonly number[]) => calls.slice(1).map((at, i) => at - calls[i]!);

async function main(): Promise<void> {
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const prefix = `bench${randomUUID().slice(0, 8)}`;
  const redis = createRedis(REDIS_URL);
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  const sql = new SqlPool({ databaseUrl: dbUrl, poolMax: 4 });
  const mcp = await startTestMcpServer();
  try {
    const workspaceId = newId();
    const userId = newId();
    const agentId = newId();
    const spec: AgentSpec = AgentSpecSchema.parse({
      name: 'bench',
      instructions: 'Echo every step.',
      model: { provider: 'scripted', name: 'script' },
      script: [...Array.from({ length: STEPS }, (_, i) => ({ tool: 'web.echo', arguments: { text: `step ${i}` } })), { say: 'done' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      triggers: [{ kind: 'bench.loop' }],
      permissionMode: 'bypass',
      budget: { maxTurns: STEPS + 1 },
    });
    await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'bench')`, [workspaceId]);
    await pg.query(`INSERT INTO users (id, name) VALUES ($1, 'bench')`, [userId]);
    await pg.query(`INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, 'bench', 1, true, $3, now())`, [agentId, workspaceId, userId]);
    await pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, $2, $3)`, [agentId, JSON.stringify(spec), userId]);

    const toolOptions = { allowPrivate: true };
    let timed: TimedModel | undefined;
    const loop = new AgentLoop({
      contexts: new SqlRunContextStore(sql),
      transcripts: new SqlTranscriptStore(sql),
      mailbox: new RedisMailbox(redis, prefix),
      spend: new SqlSpendLedger(sql),
      secrets: { read: async () => null },
      prices: createPriceTable(),
      model: async (agentSpec, input) => (timed = new TimedModel(new ScriptedModel({ script: agentSpec.script ?? [], fact: input.fact }))),
      tools: (input) => connectTools({ ...input, options: toolOptions, log }),
      log,
    });
    const runs = new SqlRunReads(sql);
    const queue = new SqlRunQueue(sql, { owner: 'bench', leaseMs: 60_000 });

    const platformSteps: number[] = [];
    const baselineSteps: number[] = [];
    const setups: number[] = [];
    let platformTime = 0;
    let baselineTime = 0;

    const platformRun = async () => {
      const runId = newId();
      await pg.query(
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, started_at, lease_owner, lease_until)
         VALUES ($1, $2, $3, 1, 'manual', $4, 'running', $5, now(), 'bench', now() + interval '1 minute')`,
        [runId, workspaceId, agentId, JSON.stringify({ type: 'manual', input: 'go', userId }), newId()],
      );
      const begin = performance.now();
      const result = await loop.execute(
        { id: runId, workspaceId, workspaceSlug: 'bench', agentId, agentVersion: 1, status: 'running', eventId: null, depth: 0, spec },
        { signal: new AbortController().signal, shouldStop: () => runs.stopReason(runId) },
      );
      if (result.status !== 'completed' || result.outcome.toolCalls !== STEPS) throw new Error(`bench run did not complete: ${JSON.stringify(result)}`);
      // As the runner does: the ending, and the claim of the lane's next run (none here).
      await queue.end(runId, { status: 'completed', reason: null, outcome: result.outcome, error: null }, 0);
      const calls = timed!.calls;
      setups.push(calls[0]! - begin);
      platformSteps.push(...stepsOf(calls));
      platformTime += calls.at(-1)! - calls[0]!;
    };

    let host: ToolHost | undefined;
    const baselineRun = async () => {
      // The same model and the same tool host (connected once, outside the measured steps).
      host ??= (await connectTools({ servers: spec.tools.mcpServers, workspaceId: 'bench', options: toolOptions, log })).host;
      const model = new TimedModel(new ScriptedModel({ script: spec.script ?? [], fact: null }));
      const signal = new AbortController().signal;
      for (;;) {
        const response = await model.complete({ messages: [], tools: [], signal });
        if (response.toolCalls.length === 0) break;
        for (const call of response.toolCalls) {
          const result = await host.call(call.name, JSON.parse(call.arguments), signal);
          if (!result.ok) throw new Error(`baseline tool call failed: ${JSON.stringify(result)}`);
        }
      }
      baselineSteps.push(...stepsOf(model.calls));
      baselineTime += model.calls.at(-1)! - model.calls[0]!;
    };

    // Warm up both paths (connections, JIT), then alternate so drift on a shared machine hits both alike.
    await platformRun();
    await baselineRun();
    platformSteps.length = baselineSteps.length = setups.length = 0;
    platformTime = baselineTime = 0;
    for (let r = 0; r < RUNS; r++) {
      await platformRun();
      await baselineRun();
    }
    await host?.close();

    const p = (values: number[], q: number) => quantile(values, q);
    const platform = { p50: p(platformSteps, 0.5), p99: p(platformSteps, 0.99), perSecond: (platformSteps.length / platformTime) * 1000 };
    const baseline = { p50: p(baselineSteps, 0.5), p99: p(baselineSteps, 0.99), perSecond: (baselineSteps.length / baselineTime) * 1000 };
    const overhead50 = platform.p50 - baseline.p50;
    const overhead99 = platform.p99 - baseline.p99;
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    const pgVersion = (await pg.query('SHOW server_version')).rows[0].server_version;
    const body = `
## Agent loop (\`npm run bench:loop\`)

- Date: ${new Date().toISOString().slice(0, 10)}
- Machine: ${machineLine(`Redis ${redisVersion}, PostgreSQL ${pgVersion}`)}
- Command: \`npm run bench:loop\` (in one process: the runner's AgentLoop with its PostgreSQL and Redis stores, a local MCP server over Streamable HTTP on the same machine)

A scripted agent (zero-latency model) makes ${STEPS} steps per run, each one tool call (\`echo\`) on the MCP server, then a final answer; ${RUNS} runs (${fmt(platformSteps.length)} steps), after a warm-up run. A step is the time from one model call to the next: model answer, tool call, and what the loop does around them — the stop check (PostgreSQL), one transcript INSERT per step, the mailbox drain (Redis), message building. The baseline makes the same model and tool calls (same ScriptedModel, same tool host) in a bare loop; baseline and platform runs alternate.

| path | steps | steps/s | p50 per step | p99 per step |
|---|---:|---:|---:|---:|
| AgentLoop (platform) | ${fmt(platformSteps.length)} | ${fmt(platform.perSecond)} | ${fmt(platform.p50, 2)} ms | ${fmt(platform.p99, 2)} ms |
| baseline: bare loop, same model and tool calls | ${fmt(baselineSteps.length)} | ${fmt(baseline.perSecond)} | ${fmt(baseline.p50, 2)} ms | ${fmt(baseline.p99, 2)} ms |
| **platform overhead per step** | | | **${fmt(overhead50, 2)} ms** | ${fmt(overhead99, 2)} ms |

Run set-up before the first model call (read the run's context and its transcript position, build the model, connect the MCP server; an unpriced model skips the day's spend): p50 ${fmt(p(setups, 0.5), 1)} ms, p99 ${fmt(p(setups, 0.99), 1)} ms. Ratio of step p50s, platform to baseline: ${fmt(platform.p50 / baseline.p50, 2)}.

Target (issue 4): platform overhead ≤ 5 ms per step at p50 — ${overhead50 <= 5 ? 'met' : 'not met'}.
`;
    process.stdout.write(body);
    writeSection('bench:loop', body);
  } finally {
    await mcp.close();
    await sql.$disconnect();
    await pg.end();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await closeRedis(redis);
    await dropDatabase(dbUrl).catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
