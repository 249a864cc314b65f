import { Client } from 'pg';
import { apiClient, startSlowCommits, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { scripted } from './runner-test-helpers';

/**
 * Issue 37, items 2 and 3 (decision 0054), over real processes. One agent at concurrency 50
 * under 300 facts/s while a second PostgreSQL client makes commits slow: published → started
 * stays bounded and never more than 50 of its runs overlap. Workspace A records 10,000 facts for
 * an agent, then workspace B one: B's run starts within the stated bound (FAIR_START_BOUND_MS
 * after it is queued) while A's backlog drains.
 */
jest.setTimeout(600_000);

/** The stated bound (decision 0054): a queued run of a workspace with fewer runs in flight starts at the next claim; claims come with every ending. */
const FAIR_START_BOUND_MS = 2_000;
/** 60 s with ISSUE_37_FULL=1 (the bench's length); CI runs a bounded 20 s. */
const LOAD_MS = process.env.ISSUE_37_FULL === '1' ? 60_000 : 20_000;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** How often the overlap sampler reads the runs' statuses. */
const SAMPLE_EVERY_MS = 50;

describe('issue 37: the run queue under load and between workspaces', () => {
  let platform: TestPlatform;
  let pg: Client;
  afterEach(async () => {
    await pg?.end();
    await platform?.stop();
  });
  const start = async (env: Record<string, string>) => {
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { CLAIM_IDLE_MS: '1000', ...env } });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  };

  it('one agent at concurrency 50 under 300 facts/s with slow commits: never more than 50 overlap, its lane kept full while runs wait, published → started bounded where the runs keep up', async () => {
    await start({ RUNNER_CONCURRENCY: '100' });
    const token = await platform.createWorkspace('load');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/load/agents', scripted('fifty', 'load.go', 1, 20, { concurrency: 50 }))).body.id as string;
    const slow = await startSlowCommits(platform.db.url);
    const samples: Array<{ running: number; queued: number }> = [];
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        const { rows } = await pg.query<{ running: number; queued: number }>(
          `SELECT count(*) FILTER (WHERE status = 'running')::int AS running, count(*) FILTER (WHERE status = 'queued')::int AS queued FROM runs WHERE agent_id = $1`, [agent]);
        samples.push(rows[0]!);
        // Pacing of the sampler, not a wait for something: it samples until the load ends.
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
      }
    })();
    const began = Date.now();
    let posted = 0;
    for (let tick = 0; Date.now() - began < LOAD_MS; tick++) {
      const events = Array.from({ length: 30 }, (_, i) => ({ kind: 'load.go', subject: { type: 't', id: String(posted + i) } }));
      posted += events.length;
      expect([200, 202]).toContain((await api('POST', '/v1/workspaces/load/events:batch', { events })).status);
      const wait = began + (tick + 1) * 100 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const loadEnded = Date.now();
    const commits = await slow.stop();
    await waitFor(async () => {
      const { rows } = await pg.query<{ n: number; open: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS open FROM runs WHERE agent_id = $1`, [agent]);
      return (rows[0]!.n === posted && rows[0]!.open === 0) || undefined;
    }, { timeoutMs: 300_000, intervalMs: 200, what: 'every run ended' });
    loading = false;
    await sampler;
    const { rows } = await pg.query<{ published: Date; queued: Date; started: Date; ended: Date; status: string; reason: string | null }>(
      `SELECT e.ts AS published, r.queued_at AS queued, r.started_at AS started, r.ended_at AS ended, r.status::text, r.reason FROM runs r JOIN platform_events e ON e.id = r.event_id WHERE r.agent_id = $1`, [agent]);
    const lag = (from: number, to: number) => rows.filter((r) => r.published.getTime() >= from && r.published.getTime() < to).map((r) => r.started.getTime() - r.published.getTime());
    const third = LOAD_MS / 3;
    const first = lag(began, began + third);
    const last = lag(began + 2 * third, loadEnded);
    // Where the time went: the matcher's part (published → queued) and the run queue's (queued → started).
    const queueWait = rows.map((r) => r.started.getTime() - r.queued.getTime());
    const matchWait = rows.map((r) => r.queued.getTime() - r.published.getTime());
    const duration = rows.map((r) => r.ended.getTime() - r.started.getTime());
    const peak = Math.max(...samples.map((sample) => sample.running));
    // The queue's part: while runs wait, the lane is kept full (a claim behind a lock would leave slots empty).
    const waiting = samples.filter((sample) => sample.queued >= 50);
    const full = waiting.filter((sample) => sample.running >= 45).length / Math.max(1, waiting.length);
    // What this machine can execute at concurrency 50, whatever the queue does.
    const capacity = (50 * 1000) / Math.max(1, percentile(duration, 50));
    process.stdout.write(`posted ${posted} in ${loadEnded - began} ms with ${commits} slow commits beside; peak running ${peak}; lane full in ${(100 * full).toFixed(0)} % of ${waiting.length} samples with runs waiting; ` +
      `published→started p50/p99 first third ${percentile(first, 50)}/${percentile(first, 99)} ms, last third ${percentile(last, 50)}/${percentile(last, 99)} ms; ` +
      `published→queued p50/p99 ${percentile(matchWait, 50)}/${percentile(matchWait, 99)} ms, queued→started ${percentile(queueWait, 50)}/${percentile(queueWait, 99)} ms, ` +
      `run started→ended ${percentile(duration, 50)}/${percentile(duration, 99)} ms\n`);
    expect(rows.filter((r) => r.reason === 'runner_lost')).toEqual([]);
    expect(rows.every((r) => r.status === 'completed')).toBe(true);
    expect(peak).toBeLessThanOrEqual(50);
    expect(full).toBeGreaterThanOrEqual(0.9);
    // No growing backlog: the last third's runs wait about as long as the first third's. Asserted
    // where the runs themselves can keep up (50 / their duration ≥ the rate), and always with
    // ISSUE_37_FULL=1; on a machine that cannot execute 300 runs/s at concurrency 50 the backlog
    // grows whatever the queue does, and the test says so.
    const offeredRate = (posted * 1000) / (loadEnded - began);
    if (process.env.ISSUE_37_FULL === '1' || capacity >= offeredRate) {
      expect(percentile(last, 50)).toBeLessThan(Math.max(3 * percentile(first, 50), 1_000));
      expect(percentile(last, 99)).toBeLessThan(5_000);
    } else {
      process.stdout.write(`backlog bound not asserted: runs took ${percentile(duration, 50)} ms (p50) here, so concurrency 50 executes at most ${capacity.toFixed(0)} runs/s < ${offeredRate.toFixed(0)} offered\n`);
    }
  });

  it("workspace A records 10,000 facts for an agent, then workspace B one: B's run starts within the bound while A drains", async () => {
    await start({ RUNNER_CONCURRENCY: '20' });
    const apiA = apiClient(platform.gatewayUrl, await platform.createWorkspace('flood'));
    const apiB = apiClient(platform.gatewayUrl, await platform.createWorkspace('quiet'));
    const agentA = (await apiA('POST', '/v1/workspaces/flood/agents', scripted('flood', 'flood.go', 1, 20, { concurrency: 5 }))).body.id as string;
    const agentB = (await apiB('POST', '/v1/workspaces/quiet/agents', scripted('quiet', 'quiet.go', 1, 20))).body.id as string;
    for (let batch = 0; batch < 20; batch++) {
      const events = Array.from({ length: 500 }, (_, i) => ({ kind: 'flood.go', subject: { type: 't', id: String(batch * 500 + i) } }));
      expect([200, 202]).toContain((await apiA('POST', '/v1/workspaces/flood/events:batch', { events })).status);
    }
    // B records its fact once A's runs are queued behind a busy lane (the matcher has caught up with A).
    await waitFor(async () => {
      const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND status = 'queued'`, [agentA]);
      return rows[0]!.n >= 2_000 || undefined;
    }, { timeoutMs: 120_000, intervalMs: 100, what: "A's backlog queued" });
    const posted = Date.now();
    expect((await apiB('POST', '/v1/workspaces/quiet/events', { kind: 'quiet.go', subject: { type: 't', id: 'one' } })).status).toBe(202);
    const b = await waitFor(async () => {
      const { rows } = await pg.query<{ queued: Date; started: Date | null }>(`SELECT queued_at AS queued, started_at AS started FROM runs WHERE agent_id = $1`, [agentB]);
      return rows[0]?.started ? rows[0] : undefined;
    }, { timeoutMs: 60_000, intervalMs: 20, what: "B's run started" });
    const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND status = 'queued' AND queued_at < $2`, [agentA, b.queued]);
    const waited = b.started!.getTime() - b.queued.getTime();
    process.stdout.write(`B's run: queued → started ${waited} ms, posted → started ${b.started!.getTime() - posted} ms, with ${rows[0]!.n} of A's runs queued before it still waiting\n`);
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(waited).toBeLessThanOrEqual(FAIR_START_BOUND_MS);
  });
});
