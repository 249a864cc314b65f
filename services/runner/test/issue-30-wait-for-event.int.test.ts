import { SqlPool } from '@switchyard/db';
import { apiClient, spawnService, startTestPlatform, waitFor, type ServiceProcess, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(300_000);

/**
 * Issue 30, item 2 (decision 0055), through the services as processes: runs
 * park on `platform.wait_for_event` (`awaiting_event`, no lease), every
 * service is stopped and started again, and then the awaited fact resumes
 * one run with the fact as the tool's result, while a wait that fell due
 * during the downtime and one that falls due after the restart end with the
 * typed timeout, on time. A fact that does not pass the filter resumes nothing,
 * and a run parked longer than its `maxDurationMs` still completes.
 */
describe('issue 30: wait_for_event through the services', () => {
  let platform: TestPlatform;
  let pool: SqlPool;
  let gateway: ServiceProcess | undefined;
  const ENV = { RUNNER_SWEEP_INTERVAL_MS: '500', CLAIM_IDLE_MS: '1000' };

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true, approvals: true, runners: 1, env: ENV });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await gateway?.stop('SIGTERM');
    await pool?.$disconnect();
    await platform?.stop();
  });

  it('a wait survives a restart of every service and resumes with the fact; timeouts fire on time after a restart', async () => {
    const token = await platform.createWorkspace('acme');
    const api = apiClient(platform.gatewayUrl, token);
    const waiter = async (name: string, wait: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const created = await api('POST', '/v1/workspaces/acme/agents', {
        name,
        instructions: 'Wait for CI.',
        model: { provider: 'scripted', name: 'script' },
        script: [{ say: 'waiting', tool: 'platform.wait_for_event', arguments: wait }, { say: 'done' }],
        triggers: [{ kind: `${name}.go` }],
        tools: { platform: ['wait_for_event'] },
        ...extra,
      });
      if (created.status !== 201) throw new Error(`agent refused: ${JSON.stringify(created.body)}`);
      const posted = await api('POST', '/v1/workspaces/acme/events', { kind: `${name}.go`, subject: { type: 't', id: name } });
      expect(posted.status).toBe(202);
      return waitFor(async () => (await pool.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM runs WHERE event_id = $1::uuid`, posted.body.id))[0]?.id, {
        timeoutMs: 60_000,
        what: `the run of ${name}`,
      });
    };
    const runs = {
      fact: await waiter('fact_wait', { kind: 'ci.*', filter: { path: 'payload.branch', op: 'eq', value: 'main' }, timeoutMs: 600_000 }),
      // Parked far longer than its 2 s wall-clock limit: parked time does not count (decision 0050), so it completes.
      dueWhileDown: await waiter('down_wait', { kind: 'never.happens', timeoutMs: 3_000 }, { budget: { maxDurationMs: 2_000 } }),
      dueAfter: await waiter('after_wait', { kind: 'never.happens', timeoutMs: 30_000 }),
    };
    for (const runId of Object.values(runs)) {
      await waitFor(async () => (await statusOf(pool, runId)) === 'awaiting_event', { timeoutMs: 60_000, what: `run ${runId} parked on its wait` });
    }
    const leases = await pool.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND lease_owner IS NOT NULL`, Object.values(runs));
    expect(leases[0]!.n).toBe(0);
    // Not the filter's branch: resumes nothing.
    expect((await api('POST', '/v1/workspaces/acme/events', { kind: 'ci.finished', subject: { type: 'pipeline', id: 'p0' }, payload: { branch: 'dev' } })).status).toBe(202);

    await Promise.all([platform.gateway, ...platform.eventLogs, platform.matcher!, ...platform.runners, platform.approvals!].map((proc) => proc.stop('SIGTERM')));
    await waitFor(async () => (await waitRow(pool, runs.dueWhileDown)).due, { timeoutMs: 30_000, intervalMs: 100, what: 'the short wait due while everything is down' });
    gateway = await spawnService('gateway', platform.env, { readyPattern: /gateway listening/ });
    await Promise.all([platform.startEventLog(), platform.startMatcher(), platform.startRunner(), platform.startApprovals()]);
    const restartedAt = Date.now();
    const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())?.[1];
    const restarted = apiClient(`http://127.0.0.1:${port}`, token);
    const posted = await restarted('POST', '/v1/workspaces/acme/events', { kind: 'ci.finished', subject: { type: 'pipeline', id: 'p1' }, payload: { branch: 'main' } });
    expect(posted.status).toBe(202);

    for (const runId of Object.values(runs)) {
      await waitFor(async () => (await statusOf(pool, runId)) === 'completed', { timeoutMs: 90_000, intervalMs: 50, what: `run ${runId} completed` });
    }
    expect(await waitResult(pool, runs.fact)).toMatchObject({ type: 'fact', fact: { id: posted.body.id, kind: 'ci.finished', payload: { branch: 'main' } } });
    expect(await waitResult(pool, runs.dueWhileDown)).toEqual({ type: 'timeout', kind: 'never.happens', timeoutMs: 3_000 });
    expect(await waitResult(pool, runs.dueAfter)).toEqual({ type: 'timeout', kind: 'never.happens', timeoutMs: 30_000 });
    const down = await waitRow(pool, runs.dueWhileDown);
    const after = await waitRow(pool, runs.dueAfter);
    // Due while down: timed out within seconds of the restart. Due after: within a second of its deadline.
    expect(down.resolvedAt.getTime() - restartedAt).toBeLessThan(5_000);
    expect(after.resolvedAt.getTime() - after.deadline.getTime()).toBeLessThan(1_000);
    expect(after.resolvedAt.getTime()).toBeGreaterThanOrEqual(after.deadline.getTime());
    const resumes = await pool.$queryRawUnsafe<Array<{ resumes: number }>>(`SELECT resumes FROM runs WHERE id = ANY($1::uuid[])`, Object.values(runs));
    expect(resumes.map((row) => row.resumes)).toEqual([1, 1, 1]);
  });
});

async function statusOf(pool: SqlPool, runId: string): Promise<string | undefined> {
  const [row] = await pool.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text AS status FROM runs WHERE id = $1::uuid`, runId);
  return row?.status;
}

async function waitRow(pool: SqlPool, runId: string): Promise<{ due: boolean; deadline: Date; resolvedAt: Date }> {
  const [row] = await pool.$queryRawUnsafe<Array<{ due: boolean; deadline: Date; resolved_at: Date }>>(
    `SELECT deadline <= now() AS due, deadline, resolved_at FROM run_waits WHERE run_id = $1::uuid`,
    runId,
  );
  return { due: row?.due ?? false, deadline: row!.deadline, resolvedAt: row!.resolved_at };
}

/** The wait call's result as the model read it. */
async function waitResult(pool: SqlPool, runId: string): Promise<unknown> {
  const [row] = await pool.$queryRawUnsafe<Array<{ content: { result?: string } }>>(
    `SELECT content FROM transcript_entries WHERE run_id = $1::uuid AND type = 'tool' AND content->>'name' = 'platform.wait_for_event'`,
    runId,
  );
  return row?.content.result ? JSON.parse(row.content.result) : row?.content;
}
