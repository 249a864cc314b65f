import { Client } from 'pg';
import { agentLane } from '@switchyard/runs';
import { OverviewResponseSchema, type OverviewResponse } from '@switchyard/contracts';
import { apiClient, insertApproval, insertParkedRun, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { insertRun, scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;
const ws = '/v1/workspaces/acme';

/**
 * Issue 36 item 7: `GET /overview` against the real gateway and event-log
 * processes and PostgreSQL. Runs are written into the test database as the
 * runner leaves them: their status facts come from the runs' trigger through
 * the outbox, as in production, so the counts are read from real facts.
 */
describe('GET /overview (operations overview, decision 0036)', () => {
  let platform: TestPlatform;
  let admin: Api;
  let viewer: Api;
  let other: Api;
  let pg: Client;
  const ids: Record<string, string> = {};
  const runs: Record<string, string> = {};

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'wall', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const rows = (await pg.query('SELECT slug, id::text AS id FROM workspaces')).rows;
    ids.acme = rows.find((row) => row.slug === 'acme').id;
    ids.other = rows.find((row) => row.slug === 'other').id;
    ids.alpha = (await admin('POST', `${ws}/agents`, { ...scriptedAgent('alpha'), budget: { perDayUsd: 5, perRunUsd: 1 } })).body.id;
    ids.beta = (await admin('POST', `${ws}/agents`, scriptedAgent('beta'))).body.id;
    ids.theirs = (await other('POST', '/v1/workspaces/other/agents', scriptedAgent('theirs'))).body.id;

    const run = (agent: string, status: string, extra: { durationMs?: number; originType?: 'try' } = {}) =>
      insertRun(pg, { workspaceId: agent === 'theirs' ? ids.other! : ids.acme!, agentId: ids[agent]!, status, ...extra });
    for (const durationMs of [1_000, 2_000, 10_000]) await run('alpha', 'completed', { durationMs });
    runs.failed = await run('beta', 'failed', { durationMs: 4_000 });
    await run('alpha', 'cancelled');
    // Parked on waits for a fact (issue 30): two here, one in the other workspace. Before the
    // dropped run, whose end fact the first test waits for: their status facts are stored by then.
    await insertParkedRun(pg, { workspaceId: ids.acme!, agentId: ids.alpha!, status: 'awaiting_event' });
    await insertParkedRun(pg, { workspaceId: ids.acme!, agentId: ids.beta!, status: 'awaiting_event' });
    await insertParkedRun(pg, { workspaceId: ids.other!, agentId: ids.theirs!, status: 'awaiting_event' });
    await run('beta', 'dropped');
    // Neither a try (no facts) nor another workspace's runs count.
    await run('alpha', 'completed', { durationMs: 60_000, originType: 'try' });
    await run('alpha', 'queued', { originType: 'try' });
    await run('theirs', 'completed');
    await run('theirs', 'queued');
    await run('alpha', 'queued');
    await run('alpha', 'queued');
    await run('beta', 'queued');

    const parked = await insertParkedRun(pg, { workspaceId: ids.acme!, agentId: ids.beta! });
    const old = new Date(Date.now() - 3_600_000);
    ids.oldApproval = await insertApproval(pg, { workspaceId: ids.acme!, runId: parked, agentId: ids.beta!, requestedAt: old });
    ids.newApproval = await insertApproval(pg, { workspaceId: ids.acme!, runId: parked, agentId: ids.beta! });
    await insertApproval(pg, { workspaceId: ids.acme!, runId: parked, agentId: ids.beta!, status: 'approved' });

    const spend = `INSERT INTO agent_spend_daily (agent_id, day, workspace_id, cost_usd) VALUES ($1, (now() AT TIME ZONE 'UTC')::date - $2::int, $3, $4)`;
    await pg.query(spend, [ids.alpha, 0, ids.acme, 1.5]);
    await pg.query(spend, [ids.alpha, 1, ids.acme, 0.25]);
    await pg.query(spend, [ids.alpha, 7, ids.acme, 9]);
    await pg.query(spend, [ids.theirs, 0, ids.other, 3]);
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  /** The overview once the runs' facts are stored (the event-log relays the outbox a moment after the insert). */
  const overviewWhen = (done: (body: OverviewResponse) => boolean, query = '') =>
    waitFor(
      async () => {
        const response = await viewer('GET', `${ws}/overview${query}`);
        expect(response.status).toBe(200);
        const body = OverviewResponseSchema.parse(response.body);
        return done(body) && body;
      },
      { timeoutMs: 20_000, what: `the overview${query} with the runs' facts` },
    );

  it("counts the runs that ended, from the platform's own facts: per UTC minute, with the failure rate and p95 durations", async () => {
    const body = await overviewWhen((b) => b.runs.totals.dropped === 1 && b.runs.totals.completed === 3);
    expect(body.windowMinutes).toBe(60);
    expect(body.runs.totals).toEqual({ completed: 3, failed: 1, cancelled: 1, dropped: 1 });
    expect(body.runs.failureRate).toBe(0.25);
    // percentile_cont(0.95) of 1, 2, 4 and 10 s: 4 s + 0.85 × 6 s.
    expect(body.runs.p95Ms).toBeCloseTo(9_100, 0);
    const summed = body.runs.minutes.reduce((sum, m) => sum + m.completed + m.failed + m.cancelled + m.dropped, 0);
    expect(summed).toBe(6);
    for (const minute of body.runs.minutes) {
      expect(minute.minute).toMatch(/T\d\d:\d\d:00\.000Z$/);
      expect(Date.parse(minute.minute)).toBeGreaterThanOrEqual(Date.parse(body.from));
      expect(Date.parse(minute.minute)).toBeLessThanOrEqual(Date.parse(body.asOf));
    }
    expect(Date.parse(body.asOf) - Date.parse(body.from)).toBeGreaterThanOrEqual(59 * 60_000);
    expect(Date.parse(body.asOf) - Date.parse(body.from)).toBeLessThan(60 * 60_000);
    expect(body.from).toMatch(/:00\.000Z$/);
    // Every fact counted is at or below throughSeq: the workspace's last seq when it was read.
    const events = (await admin('GET', `${ws}/events?limit=1000`)).body.events as Array<{ seq: number }>;
    expect(body.throughSeq).toBe(Math.max(...events.map((e) => e.seq)));
  });

  it('does not count a run-end fact a producer posted: only the platform records those', async () => {
    const before = (await viewer('GET', `${ws}/overview`)).body.throughSeq;
    const forged = { kind: 'agent.run.failed', subject: { type: 'run', id: runs.failed }, payload: { status: 'failed' } };
    expect((await admin('POST', `${ws}/events`, forged)).status).toBe(202);
    expect((await admin('POST', `${ws}/events`, { ...forged, subject: { type: 'run', id: 'not-a-uuid' } })).status).toBe(202);
    const body = await overviewWhen((b) => b.throughSeq >= before + 2);
    expect(body.runs.totals).toEqual({ completed: 3, failed: 1, cancelled: 1, dropped: 1 });
  });

  it('counts a run in the window of the minute its end fact names, and not once the window has passed it', async () => {
    // The end fact of the failed run, moved two hours back (its run keeps its own times).
    await pg.query(`UPDATE platform_events SET ts = ts - interval '2 hours' WHERE subject_id = $1 AND kind = 'agent.run.failed' AND actor ->> 'type' = 'system'`, [runs.failed]);
    const hour = (await viewer('GET', `${ws}/overview?window=60`)).body as OverviewResponse;
    expect(hour.runs.totals.failed).toBe(0);
    expect(hour.runs.failureRate).toBe(0);
    const three = (await viewer('GET', `${ws}/overview?window=180`)).body as OverviewResponse;
    expect(three.runs.totals.failed).toBe(1);
    expect(three.runs.minutes).toHaveLength(hour.runs.minutes.length + 1);
  });

  it('lists queued runs per lane, the runs waiting for a fact, spend per UTC day against perDayUsd, and the pending approvals oldest first', async () => {
    const body = (await viewer('GET', `${ws}/overview`)).body as OverviewResponse;
    expect(body.awaitingEvent).toBe(2);
    expect(body.queues.map(({ lane, agentName, depth }) => ({ lane, agentName, depth }))).toEqual([
      { lane: agentLane(ids.alpha!), agentName: 'alpha', depth: 2 },
      { lane: agentLane(ids.beta!), agentName: 'beta', depth: 1 },
    ]);
    expect(body.spend.days).toHaveLength(7);
    expect(body.spend.days.at(-1)).toBe(body.asOf.slice(0, 10));
    expect(body.spend.agents).toEqual([
      { agentId: ids.alpha, agentName: 'alpha', perDayUsd: 5, usd: [0, 0, 0, 0, 0, 0.25, 1.5] },
      { agentId: ids.beta, agentName: 'beta', perDayUsd: 20, usd: [0, 0, 0, 0, 0, 0, 0] },
    ]);
    expect(body.approvals.pending).toBe(2);
    expect(body.approvals.oldest.map((approval) => approval.id)).toEqual([ids.oldApproval, ids.newApproval]);
  });

  it('refuses a window out of bounds or malformed, unknown parameters, no token and another workspace', async () => {
    for (const query of ['window=4', 'window=1441', 'window=abc', 'window=', 'window=1.5', 'window=-60', 'window=60&window=61', 'window=%00', 'since=1']) {
      const response = await viewer('GET', `${ws}/overview?${query}`);
      expect({ query, status: response.status, code: response.body.error?.code }).toEqual({ query, status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await viewer('GET', `${ws}/overview?window=1440`)).status).toBe(200);
    expect((await viewer('GET', `${ws}/overview?window=5`)).status).toBe(200);
    expect((await apiClient(platform.gatewayUrl)('GET', `${ws}/overview`)).status).toBe(401);
    const foreign = await other('GET', `${ws}/overview`);
    expect({ status: foreign.status, code: foreign.body.error.code }).toEqual({ status: 403, code: 'WORKSPACE_FORBIDDEN' });
    const theirs = (await other('GET', '/v1/workspaces/other/overview')).body as OverviewResponse;
    expect(theirs.runs.totals.completed).toBe(1);
    expect(theirs.queues).toHaveLength(1);
    expect(theirs.awaitingEvent).toBe(1);
    expect(theirs.spend.agents).toEqual([expect.objectContaining({ agentName: 'theirs', usd: [0, 0, 0, 0, 0, 0, 3] })]);
    expect(theirs.approvals).toEqual({ pending: 0, oldest: [] });
  });
});
