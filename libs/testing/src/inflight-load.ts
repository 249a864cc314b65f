import { Client } from 'pg';
import { apiClient } from './http-client';
import type { TestPlatform } from './platform';
import { processFootprint, type ProcessFootprint } from './process-footprint';
import type { ServiceProcess } from './spawn-service';
import { waitFor } from './wait-for';

/** Options of runInflightLoad. */
export interface InflightLoadOptions {
  /** A platform with its matcher running and OPENAI_BASE_URL set to a local server that answers every call. */
  platform: TestPlatform;
  /** Starts the one runner process that executes the runs (its footprint is sampled), once every run is queued. */
  startRunner: () => Promise<ServiceProcess>;
  /** Agents made, each an OpenAI-model agent of its own lane. */
  agents: number;
  /** Facts posted: each activates every agent, so `agents × facts` runs. */
  facts: number;
  /** Each agent's `flow.concurrency` (its runs in flight at once). */
  concurrency: number;
  /** How often the footprint, the runs in flight and the ended runs are sampled. @defaultValue 250 */
  sampleEveryMs?: number;
  /** Longest wait for every run to end. @defaultValue 170000 */
  timeoutMs?: number;
  /** Called with each sample as it is taken (a benchmark reads the runner's counters beside it). */
  onSample?: (sample: InflightSample) => Promise<void> | void;
}

/** One sample of the runner and the run queue. */
export interface InflightSample {
  /** ms since the runner started. */
  atMs: number;
  running: number;
  ended: number;
  footprint: ProcessFootprint | null;
}

/** What runInflightLoad saw. */
export interface InflightLoadResult {
  runs: number;
  /** The runner's footprint after it started, before any run. */
  idle: ProcessFootprint;
  samples: InflightSample[];
  /** Runs by final status, a failure's with its reason (`failed:model_timeout`). */
  statuses: Record<string, number>;
  /** The runner process (stopped by the caller). */
  runner: ServiceProcess;
  /** ms from the runner started to the last run ended. */
  elapsedMs: number;
}

const TERMINAL = "('completed','failed','cancelled','dropped')";

/**
 * Why this exists: issue 37's in-flight test and `bench:inflight` drive the
 * same load — many agents of `concurrency` lanes whose runs all wait on a
 * slow model at once — and read the same things while it runs: the runs
 * `running` and ended (PostgreSQL) and the runner's RSS and descriptors
 * (/proc). The model's latency and turns are the local server's business.
 */
export async function runInflightLoad(options: InflightLoadOptions): Promise<InflightLoadResult> {
  const { platform } = options;
  const slug = `inflight-${Date.now().toString(36)}`;
  const api = apiClient(platform.gatewayUrl, await platform.createWorkspace(slug));
  for (let i = 0; i < options.agents; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, options.agents - i) }, async (_, j) => {
        const spec = {
          name: `inflight-${i + j}`,
          instructions: 'Answer the fact.',
          model: { provider: 'openai', name: 'stand-in' },
          triggers: [{ kind: 'inflight.burst' }],
          flow: { concurrency: options.concurrency, queueCap: 10_000 },
        };
        let created = await api('POST', `/v1/workspaces/${slug}/agents`, spec);
        // A loaded machine's database may be slow to hand the gateway a connection: 503, try again.
        for (let tries = 1; created.status === 503 && tries < 5; tries++) created = await api('POST', `/v1/workspaces/${slug}/agents`, spec);
        if (created.status !== 201) throw new Error(`agent not created: ${created.status} ${JSON.stringify(created.body)}`);
      }),
    );
  }
  const runs = options.agents * options.facts;
  const pg = new Client({ connectionString: platform.db.url });
  await pg.connect();
  try {
    const events = Array.from({ length: options.facts }, (_, n) => ({ kind: 'inflight.burst', subject: { type: 'burst', id: String(n) }, payload: { n } }));
    const posted = await api('POST', `/v1/workspaces/${slug}/events:batch`, { events });
    if (posted.status !== 202 && posted.status !== 200) throw new Error(`facts not posted: ${posted.status} ${JSON.stringify(posted.body)}`);
    // Every run queued before the runner starts: it then holds as many at once as it can start.
    await waitFor(async () => (await counts(pg, slug)).queued >= runs, { timeoutMs: 120_000, intervalMs: 200, what: `${runs} runs queued` });
    const runner = await options.startRunner();
    const pid = runner.child.pid!;
    const idle = processFootprint(pid);
    if (!idle) throw new Error('no /proc footprint of the runner');
    const began = performance.now();
    const samples: InflightSample[] = [];
    await waitFor(
      async () => {
        const { running, ended } = await counts(pg, slug);
        const sample = { atMs: performance.now() - began, running, ended, footprint: processFootprint(pid) };
        samples.push(sample);
        await options.onSample?.(sample);
        return ended >= runs;
      },
      { timeoutMs: options.timeoutMs ?? 170_000, intervalMs: options.sampleEveryMs ?? 250, what: `${runs} runs ended` },
    );
    const elapsedMs = performance.now() - began;
    const { rows } = await pg.query<{ status: string; n: number }>(
      `SELECT status::text || coalesce(':' || reason, '') AS status, count(*)::int AS n FROM runs
        WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = $1) GROUP BY 1`,
      [slug],
    );
    return { runs, runner, idle, samples, statuses: Object.fromEntries(rows.map((row) => [row.status, row.n])), elapsedMs };
  } finally {
    await pg.end();
  }
}

/** The workspace's runs queued, running and ended. */
async function counts(pg: Client, slug: string): Promise<{ queued: number; running: number; ended: number }> {
  const { rows } = await pg.query<{ queued: number; running: number; ended: number }>(
    `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'running')::int AS running,
            count(*) FILTER (WHERE status::text IN ${TERMINAL})::int AS ended
       FROM runs WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = $1)`,
    [slug],
  );
  return rows[0]!;
}
