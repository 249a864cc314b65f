import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(300_000);

/**
 * Issue 30, the kill switch and waits (decision 0055), through the services as
 * processes: two runs parked on `platform.wait_for_event`, then the workspace
 * paused; the awaited fact is recorded and the other wait's timeout falls
 * due. Both waits resolve, but neither run resumes while the switch is on
 * (the approvals service's sweep runs every second meanwhile); once it is off,
 * each resumes once and completes with its wait's outcome as the tool result.
 */
describe('issue 30: the kill switch holds a wait’s resume', () => {
  let platform: TestPlatform;
  let pool: SqlPool;

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true, approvals: true, runners: 1, env: { APPROVALS_SWEEP_INTERVAL_MS: '1000' } });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
  });

  it('a wait resolved while paused stays parked, and resumes once when the switch is released', async () => {
    const token = await platform.createWorkspace('acme');
    const api = apiClient(platform.gatewayUrl, token);
    const ws = '/v1/workspaces/acme';
    const waiter = async (name: string, wait: Record<string, unknown>) => {
      const created = await api('POST', `${ws}/agents`, {
        name,
        instructions: 'Wait.',
        model: { provider: 'scripted', name: 'script' },
        script: [{ say: 'waiting', tool: 'platform.wait_for_event', arguments: wait }, { say: 'done' }],
        triggers: [{ kind: `${name}.go` }],
        tools: { platform: ['wait_for_event'] },
      });
      if (created.status !== 201) throw new Error(`agent refused: ${JSON.stringify(created.body)}`);
      const posted = await api('POST', `${ws}/events`, { kind: `${name}.go`, subject: { type: 't', id: name } });
      expect(posted.status).toBe(202);
      return waitFor(async () => (await pool.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM runs WHERE event_id = $1::uuid`, posted.body.id))[0]?.id, {
        timeoutMs: 60_000,
        what: `the run of ${name}`,
      });
    };
    const runs = {
      fact: await waiter('fact_wait', { kind: 'ci.finished', timeoutMs: 600_000 }),
      // Long enough to be parked and paused before it falls due, short enough to fall due while paused.
      timer: await waiter('timer_wait', { kind: 'never.happens', timeoutMs: 10_000 }),
    };
    for (const runId of Object.values(runs)) {
      await waitFor(async () => (await runRow(pool, runId)).status === 'awaiting_event', { timeoutMs: 60_000, what: `run ${runId} parked` });
    }
    expect((await api('PUT', `${ws}/settings`, { agentsPaused: true })).status).toBe(200);
    const fact = await api('POST', `${ws}/events`, { kind: 'ci.finished', subject: { type: 'pipeline', id: 'p1' } });
    expect(fact.status).toBe(202);

    // Each wait resolves while paused; its run was not resumed in the same transaction, nor by a sweep since.
    await waitFor(async () => (await waitStatus(pool, runs.fact)) === 'matched', { timeoutMs: 30_000, what: 'the fact wait matched' });
    expect(await runRow(pool, runs.fact)).toEqual({ status: 'awaiting_event', resumes: 0 });
    await waitFor(async () => (await waitStatus(pool, runs.timer)) === 'timed_out', { timeoutMs: 30_000, what: 'the timer wait timed out' });
    // Seconds after the fact's wait resolved (one approvals sweep a second meanwhile), both are still parked.
    expect(await runRow(pool, runs.timer)).toEqual({ status: 'awaiting_event', resumes: 0 });
    expect(await runRow(pool, runs.fact)).toEqual({ status: 'awaiting_event', resumes: 0 });

    expect((await api('PUT', `${ws}/settings`, { agentsPaused: false })).status).toBe(200);
    for (const runId of Object.values(runs)) {
      await waitFor(async () => (await runRow(pool, runId)).status === 'completed', { timeoutMs: 60_000, intervalMs: 100, what: `run ${runId} completed` });
      // Resumed once: one resume, one answer to the wait call.
      expect(await runRow(pool, runId)).toEqual({ status: 'completed', resumes: 1 });
    }
    expect(await waitResults(pool, runs.fact)).toEqual([expect.objectContaining({ type: 'fact', fact: expect.objectContaining({ id: fact.body.id }) })]);
    expect(await waitResults(pool, runs.timer)).toEqual([{ type: 'timeout', kind: 'never.happens', timeoutMs: 10_000 }]);
  });
});

async function runRow(pool: SqlPool, runId: string): Promise<{ status: string | undefined; resumes: number | undefined }> {
  const [row] = await pool.$queryRawUnsafe<Array<{ status: string; resumes: number }>>(`SELECT status::text AS status, resumes FROM runs WHERE id = $1::uuid`, runId);
  return { status: row?.status, resumes: row?.resumes };
}

async function waitStatus(pool: SqlPool, runId: string): Promise<string | undefined> {
  const [row] = await pool.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status FROM run_waits WHERE run_id = $1::uuid`, runId);
  return row?.status;
}

/** Every result of the wait call in the run's transcript, as the model read it. */
async function waitResults(pool: SqlPool, runId: string): Promise<unknown[]> {
  const rows = await pool.$queryRawUnsafe<Array<{ content: { result?: string } }>>(
    `SELECT content FROM transcript_entries WHERE run_id = $1::uuid AND type = 'tool' AND content->>'name' = 'platform.wait_for_event' ORDER BY seq`,
    runId,
  );
  return rows.map((row) => (row.content.result ? JSON.parse(row.content.result) : row.content));
}
