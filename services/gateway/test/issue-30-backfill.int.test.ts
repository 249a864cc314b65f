import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(600_000);

/**
 * Issue 30, item 3 (decision 0055), through the services as processes: a
 * backfill over 1,000 recorded facts of an agent whose queue cap is 10 starts
 * exactly 1,000 runs of origin `backfill` under one batch id, never more than
 * 10 of them queued at once; its dry run counts the same; another
 * workspace's facts and facts the filter refuses are never included; a batch
 * stops as one; bad input is refused with a stable code and writes nothing.
 */
describe('issue 30: backfill', () => {
  let platform: TestPlatform;
  let pool: SqlPool;

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { RUNNER_SWEEP_INTERVAL_MS: '500' } });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
  });

  it('backfills 1,000 facts with queue cap 10: exactly 1,000 runs, never more than 10 queued, the dry run counts the same, no other workspace', async () => {
    const acme = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    const other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    const from = new Date(Date.now() - 1_000).toISOString();
    await postFacts(acme, 'acme', 1_000, true);
    await postFacts(acme, 'acme', 100, false);
    await postFacts(other, 'other', 200, true);
    await waitFor(async () => (await count(pool, `SELECT count(*)::int AS n FROM platform_events WHERE kind = 'load.item'`)) === 1_300, {
      timeoutMs: 120_000,
      what: 'the facts stored',
    });
    const to = new Date(Date.now() + 1_000).toISOString();
    const agent = await acme('POST', '/v1/workspaces/acme/agents', {
      name: 'backfiller',
      instructions: 'Look at the item.',
      model: { provider: 'scripted', name: 'script' },
      script: [{ say: 'seen' }],
      triggers: [{ kind: 'nothing.ever' }],
      flow: { queueCap: 10 },
    });
    expect(agent.status).toBe(201);
    const request = { kind: 'load.*', from, to, filter: { path: 'payload.keep', op: 'eq', value: true } };

    const dry = await acme('POST', `/v1/workspaces/acme/agents/${agent.body.id}/backfill`, { ...request, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ batchId: null, dryRun: true, runs: 1_000, skipped: 0, estimatedCostUsd: null });
    expect(await count(pool, `SELECT count(*)::int AS n FROM runs WHERE agent_id = $1::uuid`, agent.body.id)).toBe(0);

    const real = await acme('POST', `/v1/workspaces/acme/agents/${agent.body.id}/backfill`, request);
    expect(real.status).toBe(201);
    expect(real.body).toMatchObject({ dryRun: false, runs: 1_000 });
    let maxQueued = 0;
    await waitFor(
      async () => {
        const [row] = await pool.$queryRawUnsafe<Array<{ queued: number; completed: number }>>(
          `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'completed')::int AS completed FROM runs WHERE agent_id = $1::uuid`,
          agent.body.id,
        );
        maxQueued = Math.max(maxQueued, row!.queued);
        return row!.completed === 1_000;
      },
      { timeoutMs: 400_000, intervalMs: 20, what: '1,000 backfill runs completed' },
    );
    expect(maxQueued).toBeLessThanOrEqual(10);
    expect(maxQueued).toBeGreaterThan(0);
    const [runs] = await pool.$queryRawUnsafe<Array<{ n: number; facts: number; batches: number; foreign: number; refused: number; origins: number }>>(
      `SELECT count(*)::int AS n, count(DISTINCT r.event_id)::int AS facts, count(DISTINCT r.origin->>'batchId')::int AS batches,
              count(*) FILTER (WHERE e.workspace_id <> r.workspace_id)::int AS foreign,
              count(*) FILTER (WHERE e.payload->>'keep' <> 'true')::int AS refused,
              count(*) FILTER (WHERE r.origin_type = 'backfill' AND r.origin->>'batchId' = $2)::int AS origins
         FROM runs r JOIN platform_events e ON e.id = r.event_id WHERE r.agent_id = $1::uuid`,
      agent.body.id,
      real.body.batchId,
    );
    expect(runs).toEqual({ n: 1_000, facts: 1_000, batches: 1, foreign: 0, refused: 0, origins: 1_000 });
    // The feeder has nothing left: no 1,001st run after a few more of its ticks.
    await waitFor(async () => (await count(pool, `SELECT count(*)::int AS n FROM backfill_batches WHERE status = 'done'`)) === 1, { timeoutMs: 10_000, what: 'the batch done' });
    expect(await count(pool, `SELECT count(*)::int AS n FROM runs WHERE agent_id = $1::uuid`, agent.body.id)).toBe(1_000);
    // The fleet sees the batch as one: its runs by batch id.
    const listed = await acme('GET', `/v1/workspaces/acme/runs?batchId=${real.body.batchId}&limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.runs).toHaveLength(100);
    expect(new Set(listed.body.runs.map((run: { agentId: string; origin: { type: string; batchId: string } }) => `${run.agentId} ${run.origin.type} ${run.origin.batchId}`))).toEqual(
      new Set([`${agent.body.id} backfill ${real.body.batchId}`]),
    );

    // A slow agent's batch, stopped as one.
    const slow = await acme('POST', '/v1/workspaces/acme/agents', {
      name: 'slow',
      instructions: 'Take your time.',
      model: { provider: 'scripted', name: 'script', params: { stepMs: 2_000 } },
      script: [{ say: 'slowly' }],
      triggers: [{ kind: 'nothing.ever' }],
      flow: { queueCap: 5 },
    });
    const batch = await acme('POST', `/v1/workspaces/acme/agents/${slow.body.id}/backfill`, { ...request, filter: { path: 'payload.keep', op: 'eq', value: false } });
    expect(batch.body.runs).toBe(100);
    const stopped = await acme('POST', `/v1/workspaces/acme/agents/${slow.body.id}/backfills/${batch.body.batchId}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.stopped.length).toBeGreaterThan(0);
    await waitFor(
      async () => (await count(pool, `SELECT count(*)::int AS n FROM runs WHERE agent_id = $1::uuid AND status IN ('queued', 'running')`, slow.body.id)) === 0,
      { timeoutMs: 30_000, what: 'the stopped batch has no live run' },
    );
    expect(await count(pool, `SELECT count(*)::int AS n FROM runs WHERE agent_id = $1::uuid`, slow.body.id)).toBeLessThan(100);
  });

  it('refuses bad input with a stable code and writes nothing', async () => {
    const acme = apiClient(platform.gatewayUrl, await platform.createWorkspace('bad'));
    const other = apiClient(platform.gatewayUrl, await platform.createWorkspace('elsewhere'));
    const agent = await acme('POST', '/v1/workspaces/bad/agents', { name: 'a', instructions: 'x', model: { provider: 'scripted', name: 'script' }, script: [{ say: 'x' }], triggers: [{ kind: 'x.y' }] });
    const foreign = await other('POST', '/v1/workspaces/elsewhere/agents', { name: 'b', instructions: 'x', model: { provider: 'scripted', name: 'script' }, script: [{ say: 'x' }], triggers: [{ kind: 'x.y' }] });
    const now = Date.now();
    const ok = { kind: 'load.*', from: new Date(now - 60_000).toISOString(), to: new Date(now).toISOString() };
    const before = await count(pool, `SELECT (SELECT count(*) FROM backfill_batches) + (SELECT count(*) FROM runs)::int AS n`);
    const cases: Array<[string, string, Record<string, unknown>, number, string]> = [
      ['from after to', agent.body.id, { ...ok, from: ok.to, to: ok.from }, 400, 'VALIDATION_FAILED'],
      ['a filter that does not parse', agent.body.id, { ...ok, filter: { path: 'nowhere.x', op: 'eq', value: 1 } }, 400, 'VALIDATION_FAILED'],
      ['a bad kind', agent.body.id, { ...ok, kind: 'Load Item' }, 400, 'VALIDATION_FAILED'],
      ['a foreign agent id', foreign.body.id, ok, 404, 'AGENT_NOT_FOUND'],
    ];
    for (const [what, agentId, body, status, code] of cases) {
      const answer = await acme('POST', `/v1/workspaces/bad/agents/${agentId}/backfill`, body);
      expect({ what, status: answer.status, code: answer.body.error?.code }).toEqual({ what, status, code });
    }
    expect(await count(pool, `SELECT (SELECT count(*) FROM backfill_batches) + (SELECT count(*) FROM runs)::int AS n`)).toBe(before);
  });
});


describe('issue 30: why-not explains a schedule\'s fire', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({});
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('GET /events/{id}/activations names the schedule whose fire recorded the fact', async () => {
    const acme = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    const schedule = await acme('POST', '/v1/workspaces/acme/schedules', { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris' });
    expect(schedule.status).toBe(201);
    const fire = await acme('POST', `/v1/workspaces/acme/schedules/${schedule.body.id}/fire`);
    expect(fire.status).toBe(201);
    const explained = await waitFor(
      async () => {
        const answer = await acme('GET', `/v1/workspaces/acme/events/${fire.body.factId}/activations`);
        return answer.status === 200 ? answer.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the fired fact stored' },
    );
    expect(explained.firedBy).toMatchObject({ scheduleId: schedule.body.id, name: 'nightly', manual: true, late: false });
    const posted = await acme('POST', '/v1/workspaces/acme/events', { kind: 'schedule.fired', subject: { type: 'schedule', id: schedule.body.id }, payload: { schedule: { id: schedule.body.id } } });
    const forged = await waitFor(
      async () => {
        const answer = await acme('GET', `/v1/workspaces/acme/events/${posted.body.id}/activations`);
        return answer.status === 200 ? answer.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the posted fact stored' },
    );
    // A fact that only says so in its payload was fired by no schedule.
    expect(forged.firedBy).toBeUndefined();
  });
});

type Api = ReturnType<typeof apiClient>;

/** Posts `n` load.item facts in batches of 500; `keep` is what the filter looks at. */
async function postFacts(api: Api, ws: string, n: number, keep: boolean): Promise<void> {
  for (let start = 0; start < n; start += 500) {
    const events = Array.from({ length: Math.min(500, n - start) }, (_, i) => ({ kind: 'load.item', subject: { type: 'item', id: `${ws}-${keep}-${start + i}` }, payload: { n: start + i, keep } }));
    const posted = await api('POST', `/v1/workspaces/${ws}/events:batch`, { events });
    expect(posted.status).toBe(202);
  }
}

async function count(pool: SqlPool, query: string, ...values: unknown[]): Promise<number> {
  const [row] = await pool.$queryRawUnsafe<Array<{ n: number | string }>>(query, ...values);
  return Number(row?.n ?? 0);
}
