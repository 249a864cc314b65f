import { runInflightLoad, startLocalOpenAiServer, startTestPlatform, type InflightLoadResult, type LocalOpenAiServer, type TestPlatform } from '@switchyard/testing';

/**
 * Issue 37, in-flight capacity, over real processes (gateway, event-log,
 * matcher, one runner), PostgreSQL, Redis and the local OpenAI-compatible
 * server answering every call after 5 s: one runner holds every run in flight
 * at once and completes them all, with its memory and sockets under the
 * bounds of decision 0053. INFLIGHT_TEST_RUNS changes the count (a multiple of 10).
 */
jest.setTimeout(240_000);

const RUNS = Number(process.env.INFLIGHT_TEST_RUNS ?? 2000);
const LATENCY_MS = 5000;
/** Fewer connections than runs: the runs share them (decision 0053), four calls a connection here. */
const MODEL_CONNECTIONS = Math.max(10, Math.ceil(RUNS / 4));
/** Slots beyond the runs: claims in flight reserve up to a lane's width each before they know what they start. */
const CAPACITY_SPARE = 100;
/** The bounds of decision 0053: memory per run in flight beyond the idle runner, and descriptors beyond the pool's. */
const RSS_PER_RUN_BYTES = 512 * 1024;
const SPARE_FDS = 64;

describe('issue 37: runs in flight', () => {
  let model: LocalOpenAiServer | undefined;
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.stop();
    await model?.close();
  });

  it('one runner process holds 2,000 runs (INFLIGHT_TEST_RUNS) waiting on a 5 s model at once and completes them all; its RSS and sockets stay bounded', async () => {
    model = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: 'done', delayMs: LATENCY_MS, usage: { prompt_tokens: 20, completion_tokens: 2 } }) });
    platform = await startTestPlatform({ matcher: true, env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-local-stand-in', RATE_LIMIT_PER_SECOND: '1000000' } });
    const startRunner = () => platform!.startRunner({ RUNNER_CONCURRENCY: String(RUNS + CAPACITY_SPARE), RUNNER_MODEL_CONNECTIONS: String(MODEL_CONNECTIONS), DATABASE_POOL_MAX: '20' });
    const result = await runInflightLoad({ platform, startRunner, agents: RUNS / 10, facts: 10, concurrency: 10 });
    report(result);

    expect(result.statuses).toEqual({ completed: RUNS });
    expect(model.requests).toHaveLength(RUNS);
    // All at once: every run was running (claimed, leased, waiting on the model) in one sample.
    expect(Math.max(...result.samples.map((s) => s.running))).toBe(RUNS);
    const peakRss = Math.max(...result.samples.map((s) => s.footprint?.rssBytes ?? 0));
    expect(peakRss - result.idle.rssBytes).toBeLessThanOrEqual(RUNS * RSS_PER_RUN_BYTES);
    const peakSockets = Math.max(...result.samples.map((s) => s.footprint?.sockets ?? 0));
    expect(peakSockets).toBeLessThanOrEqual(result.idle.sockets + MODEL_CONNECTIONS + SPARE_FDS);
    const peakFds = Math.max(...result.samples.map((s) => s.footprint?.openFds ?? 0));
    expect(peakFds).toBeLessThanOrEqual(result.idle.openFds + MODEL_CONNECTIONS + SPARE_FDS);
  });
});

function report(result: InflightLoadResult): void {
  const peak = (pick: (s: InflightLoadResult['samples'][number]) => number) => Math.max(...result.samples.map(pick));
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const rss = peak((s) => s.footprint?.rssBytes ?? 0);
  process.stdout.write(
    `${result.runs} runs in ${(result.elapsedMs / 1000).toFixed(1)} s; peak running ${peak((s) => s.running)}; ` +
      `RSS idle ${mib(result.idle.rssBytes)} MiB, peak ${mib(rss)} MiB (${((rss - result.idle.rssBytes) / result.runs / 1024).toFixed(0)} KiB a run); ` +
      `sockets idle ${result.idle.sockets}, peak ${peak((s) => s.footprint?.sockets ?? 0)}; fds peak ${peak((s) => s.footprint?.openFds ?? 0)}\n` +
      `running/ended by time: ${result.samples.filter((_, i) => i % 4 === 0).map((s) => `${(s.atMs / 1000).toFixed(1)}s ${s.running}/${s.ended}`).join(', ')}\n`,
  );
}
