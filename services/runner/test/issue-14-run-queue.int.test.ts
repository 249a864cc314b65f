import { Client } from 'pg';
import { SqlPool } from '@switchyard/db';
import { apiClient, spawnScript, startTestPlatform, waitFor, type ServiceProcess, type TestPlatform } from '@switchyard/testing';
import { SqlRunQueue } from '@switchyard/runs';
import { streamGroupStatsOf, scripted } from './runner-test-helpers';

/**
 * Issue 14: the run queue in PostgreSQL, over real processes. A run parked
 * through the queue's own API frees its lane and, resumed, is claimed ahead
 * of the runs queued after it; under a steady 300 facts/s two runners lose
 * no run and keep a concurrency-3 agent at 3 runs while 3 wait; a runner
 * SIGKILLed right after committing an ending still gets that ending's fact
 * onto `facts`, exactly once.
 */
jest.setTimeout(420_000);


interface RunRow {
  id: string;
  status: string;
  reason: string | null;
  queued_at: Date;
  started_at: Date | null;
  lease_owner: string | null;
}

describe('issue 14: the run queue', () => {
  let platform: TestPlatform;
  let pg: Client;
  const extra: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((proc) => proc.stop('SIGTERM').catch(() => undefined)));
    await pg?.end();
    await platform?.stop();
  });
  const start = async (runners: number, env: Record<string, string> = {}) => {
    platform = await startTestPlatform({ matcher: true, runners, env: { CLAIM_IDLE_MS: '1000', ...env } });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  };
  const runsOf = async (agentId: string) =>
    (await pg.query<RunRow>(
      `SELECT id::text, status::text, reason, queued_at, started_at, lease_owner FROM runs WHERE agent_id = $1 ORDER BY queued_at, id`,
      [agentId],
    )).rows;
  const settle = () => waitFor(async () => (await streamGroupStatsOf(platform, 'ingest', 'event-log')).idle || undefined, { timeoutMs: 60_000, intervalMs: 100, what: 'ingest drained' });

  it('a run parked through the queue frees its lane; resumed, it is claimed ahead of the runs queued after it', async () => {
    await start(1, { RUNNER_LEASE_MS: '900' });
    const token = await platform.createWorkspace('park');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/park/agents', scripted('park', 'park.go', 6, 100))).body.id as string;
    for (const id of ['1', '2', '3']) await api('POST', '/v1/workspaces/park/events', { kind: 'park.go', subject: { type: 't', id } });
    const [first, second, third] = await waitFor(async () => {
      const rows = await runsOf(agent);
      return rows.length === 3 && rows[0]!.status === 'running' ? rows : undefined;
    }, { timeoutMs: 30_000, intervalMs: 20, what: 'the first run running, three queued' });
    // The test-only step: the holder's status change to awaiting_approval, through the queue's own API.
    const pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
    try {
      const holder = new SqlRunQueue(pool, { owner: first!.lease_owner!, leaseMs: 900 });
      expect((await holder.park(first!.id, 0)).ended).toBe(true);
      // The lane is free: the agent's next run starts while the parked one waits.
      await waitFor(async () => (await runsOf(agent)).find((r) => r.id === second!.id && r.status !== 'queued'), { timeoutMs: 10_000, intervalMs: 20, what: 'the next run started' });
      expect((await runsOf(agent)).find((r) => r.id === first!.id)).toMatchObject({ status: 'awaiting_approval', lease_owner: null });
      expect(await holder.resume(first!.id)).toBe(true);
    } finally {
      await pool.$disconnect();
    }
    await waitFor(async () => (await runsOf(agent)).every((r) => r.status === 'completed') || undefined, { timeoutMs: 30_000, intervalMs: 50, what: 'every run completed' });
    const rows = await runsOf(agent);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // Its original place in line: queued before the third, started before it.
    expect(byId.get(first!.id)!.queued_at.getTime()).toBe(first!.queued_at.getTime());
    expect(byId.get(first!.id)!.started_at!.getTime()).toBeLessThan(byId.get(third!.id)!.started_at!.getTime());
  });

  it('two runners under 300 facts/s for 30 s: no run ends runner_lost; a concurrency-3 agent runs 3 whenever 3 wait', async () => {
    await start(2);
    const token = await platform.createWorkspace('steady');
    const api = apiClient(platform.gatewayUrl, token);
    const triple = (await api('POST', '/v1/workspaces/steady/agents', scripted('triple', 'steady.triple', 1, 20, { concurrency: 3 }))).body.id as string;
    const single = (await api('POST', '/v1/workspaces/steady/agents', scripted('single', 'steady.single', 1, 0))).body.id as string;
    // 300 facts/s for 30 s: the backlog of a longer load outlasts CI's bounds on a 2-core machine (the session note says so).
    const DURATION_MS = 30_000;
    const TICK_MS = 100;
    const PER_TICK = 30;
    // Per tick of 30 facts: 10 for the concurrency-3 agent, 5 for the concurrency-1 one, 15 no agent wants.
    const kindOf = (i: number) => (i % 3 === 0 ? 'steady.triple' : i % 6 === 1 ? 'steady.single' : 'steady.noise');
    const samples: Array<{ at: number; running: number; queued: number; stale: number }> = [];
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        // `stale`: queued runs that were queued (50 ms of commit slack) before the agent's latest
        // ending, whose claim should have started them if the lane had room.
        const { rows } = await pg.query<{ running: number; queued: number; stale: number }>(
          `SELECT count(*) FILTER (WHERE status = 'running')::int AS running, count(*) FILTER (WHERE status = 'queued')::int AS queued,
                  count(*) FILTER (WHERE status = 'queued' AND queued_at < (SELECT max(ended_at) FROM runs WHERE agent_id = $1) - interval '50 milliseconds')::int AS stale
             FROM runs WHERE agent_id = $1`,
          [triple],
        );
        samples.push({ at: Date.now(), ...rows[0]! });
        await new Promise((resolve) => setTimeout(resolve, TICK_MS));
      }
    })();
    const began = Date.now();
    let posted = 0;
    const refused: number[] = [];
    for (let tick = 0; Date.now() - began < DURATION_MS; tick++) {
      const events = Array.from({ length: PER_TICK }, (_, i) => ({ kind: kindOf(posted + i), subject: { type: 't', id: String(posted + i) } }));
      posted += PER_TICK;
      const response = await api('POST', '/v1/workspaces/steady/events:batch', { events });
      if (response.status !== 202 && response.status !== 200) refused.push(response.status);
      const wait = began + (tick + 1) * TICK_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    expect(refused).toEqual([]);
    const expected = { [triple]: Math.ceil(posted / 3), [single]: Math.floor((posted + 4) / 6) };
    await waitFor(async () => {
      const { rows } = await pg.query<{ agent: string; n: number; open: number }>(
        `SELECT agent_id::text AS agent, count(*)::int AS n, count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS open FROM runs GROUP BY agent_id`,
      );
      return rows.length === 2 && rows.every((r) => r.n === expected[r.agent] && r.open === 0) || undefined;
    // The backlog may take minutes to drain on a loaded 2-core machine (CI runs two test files at once).
    }, { timeoutMs: 240_000, intervalMs: 200, what: 'every run ended' });
    loading = false;
    await sampler;
    const { rows: outcomes } = await pg.query<{ status: string; reason: string | null; n: number }>(
      `SELECT status::text, reason, count(*)::int AS n FROM runs GROUP BY status, reason`,
    );
    process.stdout.write(`posted ${posted} facts in ${Date.now() - began} ms; runs: ${JSON.stringify(outcomes)}\n`);
    expect(outcomes.filter((o) => o.reason === 'runner_lost')).toEqual([]);
    expect(outcomes.every((o) => o.status === 'completed')).toBe(true);
    // Fewer than 3 running while 3 or more wait is allowed only around a change: runs queued
    // since the last ending wait for their job's claim (the wake-up). A shortfall with runs
    // queued before an ending (its claim should have taken them) seen twice in a row is a defect.
    const short = samples.map((s) => s.queued >= 3 && s.running < 3);
    const stale = samples.map((s, i) => short[i]! && s.stale > 0);
    const sustained = stale.filter((isStale, i) => isStale && stale[i - 1]).length;
    const waiting = samples.filter((s) => s.queued >= 3).length;
    process.stdout.write(
      `${samples.length} samples, ${waiting} with 3+ queued, ${short.filter(Boolean).length} of them short, ${stale.filter(Boolean).length} with runs queued before an ending, ${sustained} of those twice in a row\n`,
    );
    expect(sustained).toBe(0);
  });

  it('a runner SIGKILLed right after committing a run ending: the ending fact appears on facts exactly once', async () => {
    await start(0);
    const token = await platform.createWorkspace('dies');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/dies/agents', scripted('dies', 'dies.go', 1, 0))).body.id as string;
    const fixture = await spawnScript(
      'services/runner/test/fixtures/runner-dies-after-ending.ts',
      { ...platform.env, RUNNER_NAME: `dying-${Date.now()}`, RUNNER_TEST_DIE_AFTER_ENDING: '1' },
      { readyPattern: /runner started/ },
    );
    extra.push(fixture);
    await api('POST', '/v1/workspaces/dies/events', { kind: 'dies.go', subject: { type: 't', id: '1' } });
    expect(await fixture.exited).toBe('SIGKILL');
    const [run] = await runsOf(agent);
    expect(run).toMatchObject({ status: 'completed', lease_owner: null });
    const facts = async () =>
      (await pg.query<{ kind: string; n: number }>(
        `SELECT kind, count(*)::int AS n FROM platform_events WHERE subject_id = $1 GROUP BY kind ORDER BY kind`,
        [run!.id],
      )).rows;
    await waitFor(async () => (await facts()).some((f) => f.kind === 'agent.run.completed') || undefined, { timeoutMs: 30_000, intervalMs: 50, what: 'the completed fact on facts' });
    await settle();
    expect(await facts()).toEqual([
      { kind: 'agent.run.completed', n: 1 },
      { kind: 'agent.run.queued', n: 1 },
      { kind: 'agent.run.started', n: 1 },
    ]);
  });
});
