import { Client } from 'pg';
import { RUN_FAILURE_CODES, WAITING_ON_RATE_LIMIT } from '@switchyard/contracts';
import { ProviderRateLimits } from '@switchyard/redis';
import { apiClient, startLocalOpenAiServer, startTestPlatform, waitFor, type LocalOpenAiReply, type LocalOpenAiServer, type TestPlatform } from '@switchyard/testing';
import { bucketOf } from '../src/model/rate-gate';

/**
 * Issue 37, shared provider rate limits (decision 0060), over real processes: eight runner
 * processes, the gateway, event-log and matcher, PostgreSQL, Redis and the local OpenAI-compatible
 * server. The agents' spec sets `model.rateLimit.requestsPerMinute: 60`; to keep the test short
 * the runners count a "minute" over 10 s (MODEL_RATE_LIMIT_WINDOW_MS, the test's knob), so the
 * limit is 60 requests in any 10 s. One answer is a 429 with `retry-after: 2`.
 */
jest.setTimeout(240_000);

const WINDOW_MS = 10_000;
const LIMIT = 60;
const RUNNERS = 8;
const AGENTS = 12;
const FACTS = 10;
const RUNS = AGENTS * FACTS;
/** The request answered 429 (1-based), and the pause it asks for. */
const THROTTLED_REQUEST = 45;
const RETRY_AFTER_S = 2;

describe('issue 37: provider rate limits shared by every runner', () => {
  let model: LocalOpenAiServer | undefined;
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.stop();
    await model?.close();
  });

  it('eight runners share a limit of 60 requests a minute: no minute sees more than 60, no run fails, each wait is on its run, and a 429 with retry-after pauses every runner', async () => {
    const arrivals: number[] = [];
    let throttledAt = 0;
    model = await startLocalOpenAiServer({
      respond: (): LocalOpenAiReply => {
        arrivals.push(Date.now());
        if (arrivals.length === THROTTLED_REQUEST) {
          throttledAt = Date.now();
          return { type: 'error', status: 429, headers: { 'retry-after': String(RETRY_AFTER_S) } };
        }
        return { type: 'message', content: 'done', delayMs: 20, usage: { prompt_tokens: 20, completion_tokens: 2 } };
      },
    });
    platform = await startTestPlatform({ matcher: true, env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-local-stand-in', RATE_LIMIT_PER_SECOND: '1000000' } });
    const slug = `ratelimit-${Date.now().toString(36)}`;
    const api = apiClient(platform.gatewayUrl, await platform.createWorkspace(slug));
    const spec = (name: string, rateLimit: unknown) => ({
      name,
      instructions: 'Answer the fact.',
      model: { provider: 'openai', name: 'stand-in', rateLimit },
      triggers: [{ kind: 'ratelimit.burst' }],
      flow: { concurrency: FACTS, queueCap: 1000 },
    });

    // Bad limits are refused with the stable code, and nothing is written.
    for (const bad of [{}, { requestsPerMinute: 0 }, { requestsPerMinute: 1.5 }, { tokensPerMinute: -1 }, { requestsPerMinute: '60' }, { requestsPerMinute: 60, burst: 5 }, { requestsPerMinute: 1e12 }]) {
      const refused = await api('POST', `/v1/workspaces/${slug}/agents`, spec('bad', bad));
      expect([refused.status, refused.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect((await api('GET', `/v1/workspaces/${slug}/agents`)).body.agents ?? []).toHaveLength(0);

    for (let i = 0; i < AGENTS; i++) {
      const created = await api('POST', `/v1/workspaces/${slug}/agents`, spec(`limited-${i}`, { requestsPerMinute: LIMIT }));
      expect(created.status).toBe(201);
    }
    const events = Array.from({ length: FACTS }, (_, n) => ({ kind: 'ratelimit.burst', subject: { type: 'burst', id: String(n) }, payload: { n } }));
    expect([200, 202]).toContain((await api('POST', `/v1/workspaces/${slug}/events:batch`, { events })).status);

    const pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    try {
      // Every run queued before the runners start: all of them then want the model at once.
      await waitFor(async () => (await statuses(pg, slug)).queued === RUNS, { timeoutMs: 60_000, intervalMs: 200, what: `${RUNS} runs queued` });
      const env = { MODEL_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS), RUNNER_CONCURRENCY: String(RUNS) };
      await Promise.all(Array.from({ length: RUNNERS }, () => platform!.startRunner(env)));
      await waitFor(async () => (await statuses(pg, slug)).ended === RUNS, { timeoutMs: 180_000, intervalMs: 250, what: `${RUNS} runs ended` });
      expect((await statuses(pg, slug)).byStatus).toEqual({ completed: RUNS });
    } finally {
      await pg.end();
    }

    // One model call a run, and the throttled one once more.
    expect(arrivals).toHaveLength(RUNS + 1);
    const busiest = busiestWindow(arrivals, WINDOW_MS);
    process.stdout.write(`${arrivals.length} requests in ${((arrivals.at(-1)! - arrivals[0]!) / 1000).toFixed(1)} s; busiest ${WINDOW_MS} ms window: ${busiest}\n`);
    expect(busiest).toBeLessThanOrEqual(LIMIT);
    // The limit was what held the runs back, not something else.
    expect(busiest).toBeGreaterThanOrEqual(LIMIT - 10);

    // The 429's retry-after paused every runner: past the calls already on their way, none reached the provider for 2 s.
    const paused = arrivals.filter((at) => at > throttledAt + 300 && at < throttledAt + RETRY_AFTER_S * 1000 - 100);
    expect(paused).toEqual([]);

    // The waits are on the runs, through the API: nearly every run waited its turn (only calls that found the bucket idle did not).
    const { rows } = await listRuns(platform, slug);
    let waited = 0;
    for (const runId of rows) {
      const transcript = await api('GET', `/v1/workspaces/${slug}/runs/${runId}/transcript?limit=500`);
      const notices = (transcript.body.entries as Array<{ type: string; content: { code?: string; waitMs?: number } }>).filter((entry) => entry.type === 'notice' && entry.content.code === WAITING_ON_RATE_LIMIT);
      if (notices.length > 0) waited++;
      for (const notice of notices) expect(notice.content.waitMs).toBeGreaterThan(0);
    }
    process.stdout.write(`${waited} of ${RUNS} runs recorded a ${WAITING_ON_RATE_LIMIT} notice\n`);
    expect(waited).toBeGreaterThanOrEqual(RUNS - RUNNERS);
  });

  it('a run waiting on the limit fails only at its own deadline (duration_exceeded), its wait on the transcript, nothing sent', async () => {
    model = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: 'done' }) });
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: KEY } });
    // Another runner's 429 paused the operator key's bucket for 30 s.
    await new ProviderRateLimits(platform.redis.redis, platform.env.REDIS_PREFIX!).pause(bucketOf(model.baseUrl, KEY), 30_000);
    const slug = `ratelimit-deadline-${Date.now().toString(36)}`;
    const api = apiClient(platform.gatewayUrl, await platform.createWorkspace(slug));
    const created = await api('POST', `/v1/workspaces/${slug}/agents`, {
      name: 'impatient',
      instructions: 'Answer the fact.',
      model: { provider: 'openai', name: 'stand-in', rateLimit: { requestsPerMinute: 60 } },
      triggers: [{ kind: 'ratelimit.deadline' }],
      budget: { maxDurationMs: 2_000 },
    });
    expect(created.status).toBe(201);
    expect([200, 202]).toContain((await api('POST', `/v1/workspaces/${slug}/events`, { kind: 'ratelimit.deadline', subject: { type: 'x', id: '1' }, payload: {} })).status);
    const run = await waitFor(
      async () => {
        const runs = (await api('GET', `/v1/workspaces/${slug}/runs`)).body.runs as Array<{ id: string; status: string; reason?: string | null }> | undefined;
        return runs?.find((r) => r.status === 'failed' || r.status === 'completed');
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the run ended' },
    );
    expect([run.status, run.reason]).toEqual(['failed', RUN_FAILURE_CODES.durationExceeded]);
    const entries = (await api('GET', `/v1/workspaces/${slug}/runs/${run.id}/transcript`)).body.entries as Array<{ type: string; content: { code?: string; waitMs?: number } }>;
    const wait = entries.find((entry) => entry.type === 'notice' && entry.content.code === WAITING_ON_RATE_LIMIT);
    expect(wait?.content.waitMs).toBeGreaterThan(20_000);
    expect(model.requests).toHaveLength(0);
  });
});

const KEY = 'sk-local-stand-in';

/** The most requests that arrived in any `windowMs` (a window starting at each arrival). */
function busiestWindow(arrivals: readonly number[], windowMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let busiest = 0;
  for (let start = 0, end = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    busiest = Math.max(busiest, end - start);
  }
  return busiest;
}

async function statuses(pg: Client, slug: string): Promise<{ queued: number; ended: number; byStatus: Record<string, number> }> {
  const { rows } = await pg.query<{ status: string; n: number }>(
    `SELECT status::text || coalesce(':' || reason, '') AS status, count(*)::int AS n FROM runs
      WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = $1) GROUP BY 1`,
    [slug],
  );
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, row.n]));
  const ended = rows.filter((row) => /^(completed|failed|cancelled|dropped)/.test(row.status)).reduce((sum, row) => sum + row.n, 0);
  return { queued: byStatus.queued ?? 0, ended, byStatus };
}

async function listRuns(platform: TestPlatform, slug: string): Promise<{ rows: string[] }> {
  const pg = new Client({ connectionString: platform.db.url });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ id: string }>(`SELECT id FROM runs WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = $1)`, [slug]);
    return { rows: rows.map((row) => row.id) };
  } finally {
    await pg.end();
  }
}
