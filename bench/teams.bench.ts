/**
 * `npm run bench:teams`: how soon a teammate sees a message (decision 0035).
 *
 * All services as processes (gateway, event-log, one runner); BENCH_TEAMMATES
 * teammates, one agent each, whose model is the local OpenAI server started
 * here (a scripted model over the real client): the time a model request
 * arrives is the step in which the loop shows the model the message. Messages
 * are posted as a person's, `POST /teammates/{name}/messages`, open loop at
 * BENCH_RATE a second round robin over the teammates, BENCH_SECONDS per phase:
 *
 * 1. Idle: each turn is one immediate answer, so a message usually finds its
 *    teammate idle and wakes it: posted → the first model call of the woken
 *    turn, split by the run's `queued_at` and `started_at`.
 * 2. Busy: every teammate is in a turn that keeps working — each model step
 *    takes BENCH_STEP_MS and asks for one `echo` on a local MCP server —
 *    posted → the next model call that holds it, and the part of it after
 *    the model step in progress ended (the tool step and the boundaries).
 *
 * Baseline before each phase, same rate and Redis: the bare mailbox write
 * (SessionMailbox.postResident, the gateway's script) → read (XREAD BLOCK on
 * the same streams); and a one-row INSERT's commit on the same PostgreSQL
 * (a wake commits one transaction). Before the idle phase, the bare wake
 * (bare-wake.ts): the wake's hops without the platform's code, the floor of
 * its path on this machine.
 *
 * Then the long-conversation scenario (bench/lib/long-conversation.ts, issue
 * 31): BENCH_LONG_TEAMMATES × BENCH_LONG_TURNS turns, without and with
 * compaction. BENCH_SCENARIO=wake or =long runs one of the two alone (a
 * bounded run: BENCH_LONG_TEAMMATES=10 BENCH_LONG_TURNS=20). Writes its
 * sections of BENCHMARKS.md.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { MAILBOX_FIELD, mailboxStream } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { closeRedis, createRedis, SessionMailbox, toKey } from '@switchyard/redis';
import { spawnService, startLocalOpenAiServer, startTestMcpServer, type LocalOpenAiReply, type LocalOpenAiRequest, type ServiceProcess } from '@switchyard/testing';
import { bareWake } from './lib/bare-wake';
import { longConversation, longConversationReply } from './lib/long-conversation';
import { benchServices } from './lib/bench-services';
import { CpuWindow } from './lib/process-cpu';
import { enableRoundTrips, RoundTripWindow, roundTripRows } from './lib/round-trips';
import { machineLine, writeSection } from './lib/report';
import { fmt, quantile } from './lib/stats';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TEAMMATES = Number(process.env.BENCH_TEAMMATES ?? 50);
/** Messages a second, over all teammates. */
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/** A busy teammate's model step. */
const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 1000);
/** BENCH_ROUND_TRIPS=1: each service's requests to Redis and PostgreSQL per message of the idle phase (a hook in every service). */
const ROUND_TRIPS_DIR = enableRoundTrips();
/** `all` (default), `wake` (issue 17's phases) or `long` (issue 31's long conversation). */
const SCENARIO = process.env.BENCH_SCENARIO ?? 'all';
const LONG_TEAMMATES = Number(process.env.BENCH_LONG_TEAMMATES ?? 50);
const LONG_TURNS = Number(process.env.BENCH_LONG_TURNS ?? 40);
/** The compacting run's memory and message size: a budget a conversation passes after about eight turns. */
const LONG_MEMORY = { maxContextTokens: Number(process.env.BENCH_LONG_MAX_CONTEXT ?? 1500), keepRecentTurns: Number(process.env.BENCH_LONG_KEEP ?? 4) };
const LONG_MESSAGE_CHARS = Number(process.env.BENCH_LONG_MESSAGE_CHARS ?? 400);
/** Issue 17's targets for the idle wake. */
const TARGET_P50_MS = 10;
const TARGET_P99_MS = 50;
/** Issue 31's target: the idle wake's p50 at most this many times the bare wake's p50 of the same run (at 50 messages/s). */
const TARGET_BARE_RATIO = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Wall-clock ms with a fraction, comparable with PostgreSQL's timestamps on the same machine. */
const now = () => performance.timeOrigin + performance.now();
const progress = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const loadLine = () => os.loadavg().map((n) => n.toFixed(1)).join(' / ');

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(50);
  }
}

/** One posted message and what became of it. */
interface Sent {
  n: number;
  mate: number;
  postedAt: number;
  answeredAt?: number;
  id?: string;
  woke?: boolean;
  /** When the first model request holding it arrived, and whether that request was its turn's first. */
  seenAt?: number;
  seenFirst?: boolean;
  /** Why the post failed (the connection), when it did. */
  failed?: string;
}

/** Open loop: `count` sends at `rate` a second, each started on time whatever the earlier ones are doing. */
async function openLoop(count: number, rate: number, send: (i: number) => Promise<void>): Promise<void> {
  const started = now();
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    inFlight.push(send(i));
  }
  await Promise.all(inFlight);
}

/** The bare mailbox write → read at the same rate over as many streams: one writer, one blocked reader. */
async function baseline(prefix: string, count: number): Promise<number[]> {
  const writer = createRedis(REDIS_URL);
  const reader = createRedis(REDIS_URL);
  const mailbox = new SessionMailbox(writer, prefix);
  const sessions = Array.from({ length: TEAMMATES }, () => newId());
  for (const session of sessions) await mailbox.makeResident(session);
  const keys = sessions.map((session) => toKey(prefix, ...mailboxStream(session)));
  const cursors = keys.map(() => '0');
  const postedAt = new Map<string, number>();
  const latencies: number[] = [];
  let stop = false;
  const reading = (async () => {
    while (!stop || latencies.length < postedAt.size) {
      const answer = (await reader.xread('BLOCK', 200, 'STREAMS', ...keys, ...cursors)) as Array<[string, Array<[string, string[]]>]> | null;
      const at = now();
      for (const [key, entries] of answer ?? []) {
        cursors[keys.indexOf(key)] = entries.at(-1)![0];
        for (const [, fields] of entries) {
          const id = (JSON.parse(fields[fields.indexOf(MAILBOX_FIELD) + 1]!) as { id: string }).id;
          latencies.push(at - postedAt.get(id)!);
        }
      }
    }
  })();
  await openLoop(count, RATE, async (i) => {
    const envelope = { schemaVersion: 1 as const, id: newId(), sessionId: sessions[i % TEAMMATES]!, from: { type: 'user' as const, userId: sessions[0]! }, content: `baseline ${i}`, sentAt: new Date().toISOString() };
    postedAt.set(envelope.id, now());
    await mailbox.postResident(envelope);
  });
  stop = true;
  await reading;
  await closeRedis(writer);
  await closeRedis(reader);
  return latencies;
}

/** A one-row INSERT committed, at the same rate from a pool of 10 (the gateway's default), on the given database. */
async function commitBaseline(pg: Client, dbUrl: string, count: number): Promise<number[]> {
  await pg.query('CREATE TABLE IF NOT EXISTS bench_commit_probe (id uuid PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())');
  const clients = await Promise.all(Array.from({ length: 10 }, async () => {
    const client = new Client({ connectionString: dbUrl });
    await client.connect();
    return client;
  }));
  const free = [...clients];
  const latencies: number[] = [];
  await openLoop(count, RATE, async () => {
    const started = now();
    while (free.length === 0) await sleep(1);
    const client = free.pop()!;
    await client.query('INSERT INTO bench_commit_probe (id) VALUES ($1)', [newId()]);
    free.push(client);
    latencies.push(now() - started);
  });
  await Promise.all(clients.map((client) => client.end()));
  return latencies;
}

async function main(): Promise<void> {
  const dbUrl = withDatabaseName(SERVER_URL, `sy_bench_${Date.now()}`);
  await ensureDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const prefix = `bench${randomUUID().slice(0, 8)}`;

  // The scripted model: which teammate asks is the request's model name (`mate-<i>`).
  let phase: 'idle' | 'busy' | 'drain' = 'idle';
  const sent: Sent[] = [];
  /** Each teammate's model steps in the busy phase: [request arrived, answer due]. */
  const steps: Array<Array<[number, number]>> = Array.from({ length: TEAMMATES }, () => []);
  const respond = (request: LocalOpenAiRequest): LocalOpenAiReply => {
    const long = longConversationReply(request);
    if (long) return long;
    const at = now();
    const body = request.body!;
    // A turn continues its teammate's conversation (decision 0052): its first request follows a final answer (or none), not a tool call.
    const lastAnswer = body.messages.findLast((message) => message.role === 'assistant');
    const first = !lastAnswer || !Array.isArray(lastAnswer.tool_calls);
    for (const match of JSON.stringify(body.messages).matchAll(/bench-msg-(\d+)/g)) {
      const message = sent[Number(match[1])];
      if (message && message.seenAt === undefined) Object.assign(message, { seenAt: at, seenFirst: first });
    }
    if (phase !== 'busy') return { type: 'message', content: 'ok' };
    steps[Number(body.model.slice('mate-'.length))]!.push([at, at + STEP_MS]);
    return { type: 'message', toolCalls: [{ name: 'web__echo', arguments: { text: 'working' } }], delayMs: STEP_MS };
  };
  const model = await startLocalOpenAiServer({ respond, countTokens: true });
  const mcp = await startTestMcpServer();

  const env = {
    DATABASE_URL: dbUrl, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'info', PORT: '0', RATE_LIMIT_PER_SECOND: '1000000',
    GATEWAY_HEALTH_PORT: '0', EVENT_LOG_HEALTH_PORT: '0', RUNNER_HEALTH_PORT: '0', ...(ROUND_TRIPS_DIR ? { ROUND_TRIPS_DIR } : {}),
    RUNNER_CONCURRENCY: String(Math.min(200, TEAMMATES + 10)), RUNNER_MCP_ALLOW_PRIVATE: 'true',
    OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-bench-local-0123456789', MODEL_MAX_ATTEMPTS: '1',
  };
  const redis = createRedis(REDIS_URL);
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  const procs = benchServices(`database ${dbUrl}, Redis keys ${prefix}:*`);
  const spawn = async (name: string, extra: Record<string, string> = {}, ready?: RegExp) => {
    const proc: ServiceProcess = await spawnService(name, { ...env, ...extra }, { output: 'file', timeoutMs: 120_000, ...(ready ? { readyPattern: ready } : {}) });
    procs.push(proc);
    return proc;
  };
  try {
    const token = (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', 'bench'], { cwd: ROOT, env: { ...process.env, ...env } })).stdout.trim().split('\n').at(-1)!;
    const eventLog = await spawn('event-log', { EVENT_LOG_CONSUMER: 'el-bench' });
    const gateway = await spawn('gateway', {}, /gateway listening/);
    const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())![1];
    const base = `http://127.0.0.1:${port}/v1/workspaces/bench`;
    const runner = await spawn('runner', { RUNNER_NAME: 'r-bench' }, /runner started/);
    const api = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`answered ${response.status}: ${text.slice(0, 120)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };

    if (SCENARIO === 'long' || SCENARIO === 'all') {
      const section = await longConversation(
        { teammates: LONG_TEAMMATES, turns: LONG_TURNS, memory: LONG_MEMORY, messageChars: LONG_MESSAGE_CHARS, api, pg, requests: () => model.requests, progress },
        loadLine,
      );
      const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
      const pgVersion = (await pg.query('SHOW server_version')).rows[0].server_version;
      const body = `
## Teams: long conversation (\`npm run bench:teams\`)

- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC
- Machine: ${machineLine(`Redis ${redisVersion}, PostgreSQL ${pgVersion}`)}
- Command: \`BENCH_SCENARIO=long BENCH_LONG_TEAMMATES=${LONG_TEAMMATES} BENCH_LONG_TURNS=${LONG_TURNS} BENCH_LONG_MAX_CONTEXT=${LONG_MEMORY.maxContextTokens} BENCH_LONG_KEEP=${LONG_MEMORY.keepRecentTurns} BENCH_LONG_MESSAGE_CHARS=${LONG_MESSAGE_CHARS} npm run bench:teams\` (gateway, event-log and one runner as processes on the same cores as the load generator)
${section}`;
      process.stdout.write(body);
      writeSection('bench:teams-long', body);
      model.requests.length = 0;
      if (SCENARIO === 'long') return;
    }

    const sessions: string[] = [];
    for (let i = 0; i < TEAMMATES; i++) {
      const agent = await api('POST', '/agents', {
        name: `mate-${i}`,
        instructions: 'Read your messages.',
        task: 'Answer what your mailbox holds.',
        model: { provider: 'openai', name: `mate-${i}` },
        tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
        permissionMode: 'bypass',
        triggers: [{ kind: 'bench.never' }],
        budget: { maxTurns: 500 },
      });
      sessions.push((await api('POST', '/teammates', { name: `mate-${i}`, agentId: agent.id }))['sessionId'] as string);
    }
    const turns = async (status: string) => Number((await pg.query(`SELECT count(*)::int AS n FROM runs WHERE status = $1::"RunStatus"`, [status])).rows[0].n);
    const settled = async () => (await turns('queued')) + (await turns('running')) === 0;
    /** What the database's busy sessions wait on (a post that hangs). */
    const waits = async () =>
      (
        await pg.query(
          `SELECT application_name, state, wait_event_type, wait_event, round(extract(epoch FROM now() - xact_start))::int AS xact_s, left(query, 80) AS query
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
        )
      ).rows;
    /** Messages left in a teammate's mailbox once no turn is queued or running: each such mailbox is a lost wake. */
    const strandedMessages = async () => {
      const left = await Promise.all(sessions.map((session) => redis.xlen(toKey(prefix, ...mailboxStream(session)))));
      return { mates: left.filter((n) => n > 0).length, messages: left.reduce((sum, n) => sum + n, 0) };
    };
    const post = async (mate: number, content: string) => api('POST', `/teammates/mate-${mate}/messages`, { content });
    const cpu = () =>
      new CpuWindow(async () => ({
        gateway: [gateway.child.pid!],
        runner: [runner.child.pid!],
        'event-log': [eventLog.child.pid!],
        'bench (load and model)': [process.pid],
      })).start();
    /** One phase's load: RATE messages a second round robin, each numbered so the model's requests reveal it. */
    const load = async () => {
      const from = sent.length;
      await openLoop(RATE * SECONDS, RATE, async (i) => {
        const message: Sent = { n: from + i, mate: i % TEAMMATES, postedAt: now() };
        sent.push(message);
        try {
          const answer = await post(message.mate, `bench-msg-${message.n}`);
          Object.assign(message, { answeredAt: now(), id: answer.id, woke: answer.woke });
        } catch (error) {
          message.failed = String((error as Error).cause ?? (error as Error).message);
        }
      });
      return sent.slice(from);
    };

    progress(`${TEAMMATES} teammates spawned; warm-up`);
    // Warm-up: one wake of each teammate (connections, JIT, the spec cache).
    await Promise.all(sessions.map((_, i) => post(i, 'warm up')));
    await waitUntil('the warm-up turns', settled);

    // 1. Idle wakes.
    progress('baseline, then the idle phase');
    const baseIdle = await baseline(prefix, RATE * SECONDS);
    const commitIdle = await commitBaseline(pg, dbUrl, RATE * SECONDS);
    const bare = await bareWake({ dbUrl, redisUrl: REDIS_URL, prefix, sessions: TEAMMATES, rate: RATE, count: RATE * SECONDS });
    const loadIdle = [loadLine()];
    const roundTrips = ROUND_TRIPS_DIR ? new RoundTripWindow(ROUND_TRIPS_DIR, { gateway: gateway.child.pid!, 'event-log': eventLog.child.pid!, runner: runner.child.pid! }) : undefined;
    await roundTrips?.start();
    const cpuIdle = await cpu();
    progress('idle load');
    const idle = await load();
    await waitUntil('the idle phase settled', settled);
    const stranded = await strandedMessages();
    const cpuIdleShares = await cpuIdle.end();
    const requests = await roundTrips?.end();
    loadIdle.push(loadLine());
    const woken = idle.filter((message) => message.woke);
    const runsOf = new Map(
      (
        await pg.query(
          `SELECT t.content->>'envelopeId' AS id, r.queued_at, r.started_at FROM transcript_entries t JOIN runs r ON r.id = t.run_id
           WHERE t.type = 'user' AND t.content->>'envelopeId' = ANY($1)`,
          [woken.map((message) => message.id)],
        )
      ).rows.map((row) => [row.id as string, { queuedAt: (row.queued_at as Date).getTime(), startedAt: (row.started_at as Date).getTime() }]),
    );
    const wakeMs = woken.filter((message) => message.seenFirst).map((message) => message.seenAt! - message.postedAt);
    const stage = (of: (message: Sent, run: { queuedAt: number; startedAt: number }) => number) =>
      woken.flatMap((message) => (runsOf.has(message.id!) && message.seenAt !== undefined ? [of(message, runsOf.get(message.id!)!)] : []));
    const postMs = woken.map((message) => message.answeredAt! - message.postedAt);
    const toQueued = stage((message, run) => run.queuedAt - message.postedAt);
    const queuedToStarted = stage((_, run) => run.startedAt - run.queuedAt);
    const startedToSeen = stage((message, run) => message.seenAt! - run.startedAt);
    const rodeAlong = idle.filter((message) => message.woke === false && message.seenAt !== undefined).map((message) => message.seenAt! - message.postedAt);

    // 2. Busy: every teammate in a turn of STEP_MS model steps before the load starts.
    phase = 'busy';
    const baseBusy = await baseline(prefix, RATE * SECONDS);
    const commitBusy = await commitBaseline(pg, dbUrl, RATE * SECONDS);
    progress('baseline, then the busy phase');
    const kicksFailed = (await Promise.all(sessions.map((_, i) => post(i, 'get busy').then(() => 0, () => 1)))).reduce((sum: number, n) => sum + n, 0);
    if (kicksFailed > 0) progress(`${kicksFailed} kicks failed; waits in the database: ${JSON.stringify(await waits())}`);
    // A teammate whose wake was lost (see strandedMessages) never gets busy: the phase goes on without it.
    await waitUntil('every teammate busy', async () => (await turns('running')) >= TEAMMATES - stranded.mates, 60_000).catch(() => undefined);
    const busyMates = await turns('running');
    const loadBusy = [loadLine()];
    const cpuBusy = await cpu();
    progress('busy load');
    const busyAll = await load();
    const cpuBusyShares = await cpuBusy.end();
    loadBusy.push(loadLine());
    phase = 'drain';
    await waitUntil('the busy phase settled', settled);
    progress('done');
    const busy = busyAll.filter((message) => message.woke === false && message.seenAt !== undefined);
    const busyMs = busy.map((message) => message.seenAt! - message.postedAt);
    /** After the model step in progress when it was posted ended (or from the post, when none was). */
    const afterStepMs = busy.map((message) => {
      const step = steps[message.mate]!.find(([start, end]) => start <= message.postedAt && message.postedAt < end);
      return message.seenAt! - Math.max(message.postedAt, step?.[1] ?? message.postedAt);
    });
    const unseen = sent.filter((message) => message.id !== undefined && message.seenAt === undefined).length;
    const failedIn = (messages: Sent[]) => {
      const failures = messages.filter((message) => message.failed !== undefined);
      return failures.length === 0 ? 'none' : `${fmt(failures.length)} of ${fmt(messages.length)} (${[...new Set(failures.map((message) => message.failed))].slice(0, 3).join('; ')})`;
    };

    const p = (values: number[], q: number) => fmt(quantile(values, q), 1);
    const row = (label: string, values: number[]) => `| ${label} | ${fmt(values.length)} | ${p(values, 0.5)} ms | ${p(values, 0.99)} ms |`;
    const shares = (of: Record<string, number>) => Object.entries(of).map(([name, share]) => `${name} ${fmt(share)} %`).join(', ');
    const wake50 = quantile(wakeMs, 0.5);
    const wake99 = quantile(wakeMs, 0.99);
    const bare50 = quantile(bare.latencies, 0.5);
    const bareRatio = wake50 / bare50;
    const verdict = (value: number, target: number) => (value <= target ? `met (${fmt(value, 1)} ms)` : `**not met**: ${fmt(value, 1)} ms, ${fmt(value / target, 1)}× the target`);
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    const pgVersion = (await pg.query('SHOW server_version')).rows[0].server_version;
    const body = `
## Teams (\`npm run bench:teams\`)

- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC
- Machine: ${machineLine(`Redis ${redisVersion}, PostgreSQL ${pgVersion}`)}; load average (1 / 5 / 15 min) idle phase ${loadIdle.join(' → ')}, busy phase ${loadBusy.join(' → ')}
- Command: \`BENCH_TEAMMATES=${TEAMMATES} BENCH_RATE=${RATE} BENCH_SECONDS=${SECONDS} BENCH_STEP_MS=${STEP_MS} npm run bench:teams\` (gateway, event-log and one runner as processes on the same cores as the load generator, Redis and PostgreSQL; ${TEAMMATES} teammates, one agent each, whose model is a local OpenAI-compatible server in the bench process: a model request's arrival is the step that shows the model the message)

${fmt(RATE)} messages/s posted as a person's (\`POST /teammates/{name}/messages\`, open loop, round robin over ${TEAMMATES} teammates: one every ${fmt((TEAMMATES * 1000) / RATE)} ms each), ${SECONDS} s per phase. Baseline before each phase, same rate, same Redis: the bare mailbox write (the gateway's \`postResident\` script) → read (\`XREAD BLOCK\` on the same streams). Before the idle phase, the bare wake (bench/lib/bare-wake.ts): the hops of decision 0035's wake — the post's request, the roster row, the mailbox post, the turn's insert committed, the BullMQ job, its pickup, the claim committed, the mailbox read, the model request — made by two bare processes with none of the platform's code (no auth, validation, facts, transcript or lease), the floor of the wake's path on this machine.

**Idle wake**: each turn is one immediate model answer, so most messages find their teammate idle (${fmt(woken.length)} of ${fmt(idle.length)} woke it; the rest landed during a turn and rode along).

| from the post to | n | p50 | p99 |
|---|---:|---:|---:|
${row('baseline: bare mailbox write → read', baseIdle)}
${row('baseline: a one-row INSERT committed, same PostgreSQL', commitIdle)}
${row('baseline: the bare wake (the same hops, one statement or command each, in two bare processes)', bare.latencies)}
${row('**the first model call of the woken turn**', wakeMs)}
${row('… its 202 answer (mailbox script, `message.sent` and `teammate_wake` in one statement, activation job added)', postMs)}
${row('… the turn queued (`runs.queued_at`, in `teammate_wake`)', toQueued)}

| stage of a wake | n | p50 | p99 |
|---|---:|---:|---:|
${row('queued → claimed (`started_at`: the activation job picked up by BullMQ, the claim)', queuedToStarted)}
${row('claimed → first model call (set-up: context, model, tools; first boundary: stop check, drain)', startedToSeen)}
${row('messages that rode along (posted during a turn) → seen', rodeAlong)}

Posts that failed (the gateway's answer or the connection): ${failedIn(idle)}. Left in a mailbox with no turn once the phase settled (a lost wake): ${fmt(stranded.messages)} messages at ${fmt(stranded.mates)} teammates.

Ratio of the wake p50 to the bare mailbox p50: ${fmt(wake50 / quantile(baseIdle, 0.5), 1)}; to the bare wake's p50: ${fmt(bareRatio, 1)}. CPU in the phase (of one core): ${shares(cpuIdleShares)}; the bare wake's processes: gateway ${fmt(bare.cpu.gateway)} %, runner ${fmt(bare.cpu.runner)} %.
${requests ? `
Requests each service made per message of the phase (BENCH_ROUND_TRIPS=1: a hook in each service counts what it writes to Redis, by command, a Lua script by its name; to PostgreSQL, by prepared statement; and its other TCP writes, e.g. the parts of HTTP answers and model requests):

| service | per store | most frequent |
|---|---|---|
${roundTripRows(requests, Math.max(1, idle.length)).join('\n')}
` : ''}

Target (issue 31), idle wake p50 ≤ ${TARGET_BARE_RATIO}× the bare wake's p50 of this run (at 50 messages/s; this run ${fmt(RATE)}/s): ${bareRatio <= TARGET_BARE_RATIO ? 'met' : '**not met**'} (${fmt(bareRatio, 1)}×: ${fmt(wake50, 1)} ms against ${fmt(bare50, 1)} ms). Target (issue 17), idle wake p50 ≤ ${TARGET_P50_MS} ms: ${verdict(wake50, TARGET_P50_MS)}; p99 ≤ ${TARGET_P99_MS} ms: ${verdict(wake99, TARGET_P99_MS)}.

**Busy**: ${fmt(busyMates)} of ${TEAMMATES} teammates in a turn (kicks that failed: ${fmt(kicksFailed)}) whose model steps take ${fmt(STEP_MS)} ms, each followed by one \`echo\` call on a local MCP server (the message is seen at the next model call, so "posted → seen" is mostly the wait for the step in progress; the last row counts from that step's end: the tool step and the boundaries).

| from the post to | n | p50 | p99 |
|---|---:|---:|---:|
${row('baseline: bare mailbox write → read', baseBusy)}
${row('baseline: a one-row INSERT committed, same PostgreSQL', commitBusy)}
${row('the next model call that holds it', busyMs)}
${row('… counted from the end of the model step in progress (the tool call, the boundaries: flush, stop check, drain)', afterStepMs)}

${fmt(busyAll.filter((message) => message.woke).length)} of ${fmt(busyAll.length)} messages woke their teammate instead (its turn had ended). CPU in the phase (of one core): ${shares(cpuBusyShares)}. Messages accepted but never seen by a model call: ${fmt(unseen)}. Posts that failed: ${failedIn(busyAll)}.
`;
    process.stdout.write(body);
    writeSection('bench:teams', body);
  } finally {
    await Promise.all(procs.map((proc) => proc.stop('SIGTERM')));
    await model.close();
    await mcp.close();
    await pg.end();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await closeRedis(redis);
    await dropDatabase(dbUrl).catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
