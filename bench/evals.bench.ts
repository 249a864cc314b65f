/**
 * `npm run bench:evals`: what an eval costs the platform (issue 35, decision 0058).
 *
 * All services as processes (gateway, event-log, matcher, one runner), a
 * scripted model. BENCH_CASES recorded facts make a suite; an agent has two
 * versions. Baseline, in the same run: one `POST /agents/try` of each case at
 * version 1, all ended — the platform's CPU (every service process) per try.
 * Then the eval: BENCH_CASES × 2 versions × BENCH_TRIALS trials, from its POST
 * to its settled verdict — the wall time, and the platform's CPU per trial as
 * a ratio to the CPU per try (target ≤ 1.2×: an eval is trials, not a second
 * machinery). Then the throughput against a model with a known latency: the
 * local OpenAI-compatible server answering every call after BENCH_LLM_LATENCY_MS
 * (500), a runner allowed BENCH_LLM_CONCURRENCY (20) runs at once, an eval of
 * a one-call agent at two versions: trials a second from the POST to the last
 * trial's end, as a ratio to the ideal — every slot busy with the model from
 * the first instant, ceil(trials / concurrency) × latency (target ≥ 0.8).
 * Writes its section of BENCHMARKS.md, with the load average.
 */
import os from 'node:os';
import { applyMigrations, dropDatabase, ensureDatabase, withDatabaseName } from '@switchyard/db';
import { apiClient, databaseServerUrl, startLocalOpenAiServer, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { processCpuMs } from './lib/process-cpu';
import { machineLine, writeSection } from './lib/report';
import { fmt } from './lib/stats';

const CASES = Number(process.env.BENCH_CASES ?? 50);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 5);
const LLM_LATENCY_MS = Number(process.env.BENCH_LLM_LATENCY_MS ?? 500);
const LLM_CONCURRENCY = Number(process.env.BENCH_LLM_CONCURRENCY ?? 20);
const load = () => os.loadavg().map((n) => n.toFixed(1)).join(' / ');

/** CPU ms of every platform process so far. */
function platformCpuMs(platform: TestPlatform): number {
  const processes = [platform.gateway, ...platform.eventLogs, ...platform.runners, ...(platform.matcher ? [platform.matcher] : [])];
  return processes.reduce((sum, p) => sum + (processCpuMs(p.child.pid!) ?? 0), 0);
}

type Api = ReturnType<typeof apiClient>;

/** Waits until every run has ended, reading each until it has (in order: an unended one stops the pass). */
async function runsEnded(admin: Api, ws: string, runIds: readonly string[], options: { what: string; timeoutMs: number; intervalMs: number }): Promise<void> {
  const pending = new Set(runIds);
  await waitFor(async () => {
    for (const runId of [...pending]) {
      const run = (await admin('GET', `${ws}/runs/${runId}`)).body as { status: string };
      if (['completed', 'failed', 'cancelled'].includes(run.status)) pending.delete(runId);
      else break;
    }
    return pending.size === 0;
  }, options);
}

/**
 * An eval of a one-call agent (the model answers at once with text) at two
 * versions, on the suite's cases: the time from its POST to its last trial's
 * end (GET /evals/{id} read every 100 ms), and to its settled verdict.
 */
async function throughput(admin: Api, ws: string, suite: string, factIds: readonly string[]): Promise<{ trials: number; postedMs: number; endedMs: number; settledMs: number; tries: { postedMs: number; endedMs: number } }> {
  const spec = (instructions: string) => ({
    name: 'triage-llm',
    instructions,
    model: { provider: 'openai', name: 'bench-500ms' },
    triggers: [{ kind: 'ticket.opened' }],
    enabled: false,
  });
  const agentId = (await admin('POST', `${ws}/agents`, spec('Triage the ticket.'))).body.id as string;
  await admin('PUT', `${ws}/agents/${agentId}`, spec('Triage the ticket, briefly.'));
  const tries = await tryThroughput(admin, ws, agentId, factIds);
  const start = performance.now();
  const started = await admin('POST', `${ws}/agents/${agentId}/evals`, { suite, versions: [1, 2], trials: TRIALS, budgetUsd: 100_000 });
  if (started.status !== 201) throw new Error(`eval refused: ${JSON.stringify(started.body)}`);
  const postedMs = performance.now() - start;
  let endedMs = 0;
  let trials = 0;
  await waitFor(
    async () => {
      const run = (await admin('GET', `${ws}/evals/${started.body.id}`)).body as { status: string; trialsEnded: number; trialsTotal: number };
      trials = run.trialsTotal;
      if (endedMs === 0 && run.trialsEnded === run.trialsTotal) endedMs = performance.now() - start;
      return run.status === 'completed';
    },
    { what: 'the 500 ms eval settled', timeoutMs: 1_800_000, intervalMs: 100 },
  );
  return { trials, postedMs, endedMs, settledMs: performance.now() - start, tries };
}

/**
 * The same-run baseline of the throughput: the same shadow runs started as
 * plain tries — each case TRIALS times at each version, posted by eight
 * clients at once (as the eval's start does) — from the first POST to the
 * last run's end.
 */
async function tryThroughput(admin: Api, ws: string, agentId: string, factIds: readonly string[]): Promise<{ postedMs: number; endedMs: number }> {
  const slots = factIds.flatMap((eventId) => [1, 2].flatMap((version) => Array.from({ length: TRIALS }, () => ({ eventId, version }))));
  const runIds: string[] = [];
  const start = performance.now();
  const post = async () => {
    for (let slot = slots.shift(); slot; slot = slots.shift()) runIds.push((await admin('POST', `${ws}/agents/try`, { agentId, ...slot })).body.runId);
  };
  await Promise.all(Array.from({ length: 8 }, post));
  const postedMs = performance.now() - start;
  await runsEnded(admin, ws, runIds, { what: 'the 500 ms tries ended', timeoutMs: 1_800_000, intervalMs: 100 });
  return { postedMs, endedMs: performance.now() - start };
}

async function main(): Promise<void> {
  const loadAtStart = load();
  // The migrated template each TestPlatform's database is cloned from (jest's global setup makes it for tests).
  const template = withDatabaseName(databaseServerUrl(), `sy_bench_template_${Date.now()}`);
  await ensureDatabase(template);
  await applyMigrations(template);
  process.env.SY_TEST_TEMPLATE = new URL(template).pathname.slice(1);
  const platform = await startTestPlatform({ matcher: true, env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  try {
    await platform.startRunner();
    const admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('bench'));
    const ws = '/v1/workspaces/bench';
    const spec = (rule: boolean) => ({
      name: 'triage',
      instructions: 'Triage the ticket.',
      model: { provider: 'scripted', name: 'script' },
      script: [
        { tool: 'platform.emit_event', arguments: { kind: 'ticket.triaged', subject: { type: 'ticket', id: '{{event.subject.id}}' } } },
        ...(rule ? [{ tool: 'platform.emit_event', arguments: { kind: 'ticket.paged', subject: { type: 'ticket', id: '{{event.subject.id}}' } }, when: { path: 'payload.priority', op: 'eq', value: 'high' } }] : []),
        { say: 'triaged {{event.subject.id}}' },
      ],
      tools: { platform: ['emit_event'] },
      triggers: [{ kind: 'ticket.opened' }],
      enabled: false,
    });
    const agentId = (await admin('POST', `${ws}/agents`, spec(false))).body.id as string;
    await admin('PUT', `${ws}/agents/${agentId}`, spec(true));
    const factIds: string[] = [];
    for (let i = 0; i < CASES; i++) {
      factIds.push((await admin('POST', `${ws}/events`, { kind: 'ticket.recorded', subject: { type: 'ticket', id: `T-${i}` }, payload: { priority: i % 5 === 0 ? 'high' : 'low' } })).body.id);
    }
    await waitFor(async () => (await admin('GET', `${ws}/events/${factIds.at(-1)}`)).status === 200, { what: 'the facts stored', timeoutMs: 60_000 });
    const suite = (await admin('POST', `${ws}/eval-suites`, { name: 'bench', cases: factIds.map((factId) => ({ factId, expect: { wouldNotCall: ['platform.emit_event'] } })) })).body.id as string;
    await platform.settled(60_000);

    // Baseline: one try of each case.
    const tryCpu0 = platformCpuMs(platform);
    const tryStart = performance.now();
    const runIds: string[] = [];
    for (const eventId of factIds) runIds.push((await admin('POST', `${ws}/agents/try`, { agentId, version: 1, eventId })).body.runId);
    await runsEnded(admin, ws, runIds, { what: 'the tries ended', timeoutMs: 600_000, intervalMs: 250 });
    const tryWallMs = performance.now() - tryStart;
    const cpuPerTry = (platformCpuMs(platform) - tryCpu0) / CASES;
    await platform.settled(60_000);

    const evalCpu0 = platformCpuMs(platform);
    const evalStart = performance.now();
    const started = await admin('POST', `${ws}/agents/${agentId}/evals`, { suite, versions: [1, 2], trials: TRIALS, budgetUsd: 100_000 });
    if (started.status !== 201) throw new Error(`eval refused: ${JSON.stringify(started.body)}`);
    const postedMs = performance.now() - evalStart;
    let verdict = '';
    await waitFor(
      async () => {
        const run = (await admin('GET', `${ws}/evals/${started.body.id}`)).body;
        verdict = run.result?.diff?.verdict ?? '';
        return run.status === 'completed';
      },
      { what: 'the eval settled', timeoutMs: 1_800_000, intervalMs: 500 },
    );
    const evalWallMs = performance.now() - evalStart;
    const trials = CASES * 2 * TRIALS;
    const cpuPerTrial = (platformCpuMs(platform) - evalCpu0) / trials;
    const ratio = cpuPerTrial / cpuPerTry;

    // Throughput against a model with a fixed latency: the scripted runner leaves, one allowed LLM_CONCURRENCY runs comes.
    await platform.settled(60_000);
    for (const runner of platform.runners) await runner.stop('SIGTERM');
    const model = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: 'triaged', delayMs: LLM_LATENCY_MS, usage: { prompt_tokens: 100, completion_tokens: 5 } }) });
    const llm = await (async () => {
      try {
        await platform.startRunner({ RUNNER_CONCURRENCY: String(LLM_CONCURRENCY), OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-bench-local-0123456789', MODEL_MAX_ATTEMPTS: '1' });
        return await throughput(admin, ws, suite, factIds);
      } finally {
        await model.close();
      }
    })();
    const idealMs = Math.ceil(llm.trials / LLM_CONCURRENCY) * LLM_LATENCY_MS;
    const throughputRatio = idealMs / llm.endedMs;

    const body = `## Agent evals (\`npm run bench:evals\`)

- Machine: ${machineLine('all services as processes (gateway, event-log, matcher, one runner), a scripted model')}, ${new Date().toISOString().slice(0, 10)}; load average (1 / 5 / 15 min) ${loadAtStart} at the start, ${load()} at the end (a machine shared with other engineers).
- Command: \`npm run bench:evals\` (BENCH_CASES=${CASES}, BENCH_TRIALS=${TRIALS}).

| measure | figure |
|---|---|
| baseline: ${CASES} tries, one a case, posted one by one, until all ended | ${fmt(tryWallMs / 1000, 1)} s; platform CPU ${fmt(cpuPerTry, 1)} ms a try |
| eval: ${CASES} cases × 2 versions × ${TRIALS} trials = ${trials} trials, POST → settled verdict (“${verdict}”) | ${fmt(evalWallMs / 1000, 1)} s (the POST, which starts every trial: ${fmt(postedMs / 1000, 1)} s) |
| platform CPU per trial (the POST, the trials, the reads that settle it) | ${fmt(cpuPerTrial, 1)} ms, **${fmt(ratio, 2)}×** one try (target ≤ 1.2×) |
| throughput: ${llm.trials} trials of a one-call agent, the local OpenAI-compatible server answering after ${LLM_LATENCY_MS} ms, a runner allowed ${LLM_CONCURRENCY} runs at once; POST → last trial ended | ${fmt(llm.endedMs / 1000, 1)} s (the POST: ${fmt(llm.postedMs / 1000, 1)} s; settled: ${fmt(llm.settledMs / 1000, 1)} s), ${fmt((llm.trials * 1000) / llm.endedMs, 1)} trials/s |
| ideal: ceil(${llm.trials} / ${LLM_CONCURRENCY}) × ${LLM_LATENCY_MS} ms = ${fmt(idealMs / 1000, 1)} s | **${fmt(throughputRatio, 2)}** of the ideal (target ≥ 0.8) |
| same-run baseline: the same ${llm.trials} shadow runs as plain tries, posted by 8 clients at once; first POST → last ended | ${fmt(llm.tries.endedMs / 1000, 1)} s (the POSTs: ${fmt(llm.tries.postedMs / 1000, 1)} s), **${fmt(idealMs / llm.tries.endedMs, 2)}** of the ideal; the eval takes ${fmt(llm.endedMs / llm.tries.endedMs, 2)}× its time |
| the start's own rate (trials queued by the POST a second) against the rate the model allows (${LLM_CONCURRENCY} / ${LLM_LATENCY_MS} ms) | ${fmt((llm.trials * 1000) / llm.postedMs, 1)} / ${fmt((LLM_CONCURRENCY * 1000) / LLM_LATENCY_MS, 1)} trials/s |

Platform CPU is every service process's user + system time (/proc) over the phase.
`;
    writeSection('evals', body);
    process.stdout.write(body);
  } finally {
    await platform.stop();
    await dropDatabase(template);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
