import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(300_000);

/**
 * Issue 30, a backfill whose agent goes away (decision 0055), through the
 * services as processes: the batch of an agent deleted, and of one disabled,
 * ends `stopped` with that reason (BACKFILL_STOP_REASONS) and starts no more
 * runs; a person's stop says `stopped`. `GET …/backfills/{batchId}` shows each,
 * also once its agent is deleted; a disabled agent's backfill is refused.
 */
describe('issue 30: a backfill ends with its agent', () => {
  let platform: TestPlatform;
  let pool: SqlPool;

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true, runners: 1 });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
  });

  it('ends the batch of a deleted or disabled agent, with the reason, and starts no more of its runs', async () => {
    const acme = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    const ws = '/v1/workspaces/acme';
    const from = new Date(Date.now() - 1_000).toISOString();
    const events = Array.from({ length: 20 }, (_, n) => ({ kind: 'load.item', subject: { type: 'item', id: `i-${n}` }, payload: { n } }));
    expect((await acme('POST', `${ws}/events:batch`, { events })).status).toBe(202);
    await waitFor(async () => (await count(pool, `SELECT count(*)::int AS n FROM platform_events WHERE kind = 'load.item'`)) === 20, { timeoutMs: 60_000, what: 'the facts stored' });
    const request = { kind: 'load.*', from, to: new Date(Date.now() + 1_000).toISOString() };
    // Slow runs and a queue cap of 2: each batch is still feeding when its agent goes.
    const slowAgent = async (name: string) => {
      const created = await acme('POST', `${ws}/agents`, {
        name,
        instructions: 'Take your time.',
        model: { provider: 'scripted', name: 'script', params: { stepMs: 1_000 } },
        script: [{ say: 'slowly' }],
        triggers: [{ kind: 'nothing.ever' }],
        flow: { queueCap: 2 },
      });
      expect(created.status).toBe(201);
      const batch = await acme('POST', `${ws}/agents/${created.body.id}/backfill`, request);
      expect(batch.status).toBe(201);
      expect(batch.body.runs).toBe(20);
      return { agentId: created.body.id as string, batchId: batch.body.batchId as string };
    };
    const batchOf = async ({ agentId, batchId }: { agentId: string; batchId: string }) => {
      const answer = await acme('GET', `${ws}/agents/${agentId}/backfills/${batchId}`);
      expect(answer.status).toBe(200);
      return answer.body;
    };
    const deleted = await slowAgent('deleted');
    const disabled = await slowAgent('disabled');
    const stopped = await slowAgent('stopped');
    expect(await batchOf(deleted)).toMatchObject({ id: deleted.batchId, agentId: deleted.agentId, status: 'running', reason: null, runs: 20, endedAt: null, request: { kind: 'load.*' } });

    expect((await acme('DELETE', `${ws}/agents/${deleted.agentId}`)).status).toBe(204);
    expect((await acme('POST', `${ws}/agents/${disabled.agentId}/disable`)).status).toBe(200);
    expect((await acme('POST', `${ws}/agents/${stopped.agentId}/backfills/${stopped.batchId}/stop`)).status).toBe(200);
    const ended = async (target: { agentId: string; batchId: string }, reason: string) => {
      const batch = await waitFor(async () => {
        const seen = await batchOf(target);
        return seen.status !== 'running' && seen;
      }, { timeoutMs: 30_000, what: `the batch of ${reason} ended` });
      expect(batch).toMatchObject({ status: 'stopped', reason, endedAt: expect.any(String) });
      expect(batch.started).toBeLessThan(20);
      return batch;
    };
    const endings = {
      deleted: await ended(deleted, 'agent_deleted'),
      disabled: await ended(disabled, 'agent_disabled'),
      stopped: await ended(stopped, 'stopped'),
    };
    // Ended means no more runs: after more of the feeder's ticks (the other batch's runs completing), still as many as it had started.
    const more = await slowAgent('after');
    await waitFor(async () => (await batchOf(more)).started >= 4, { timeoutMs: 60_000, what: 'a later batch fed twice' });
    for (const [name, target] of Object.entries({ deleted, disabled, stopped })) {
      const runs = await count(pool, `SELECT count(*)::int AS n FROM runs WHERE origin->>'batchId' = $1`, target.batchId);
      expect({ name, runs }).toEqual({ name, runs: endings[name as keyof typeof endings].started });
      expect({ name, started: (await batchOf(target)).started }).toEqual({ name, started: endings[name as keyof typeof endings].started });
    }

    // A backfill run is read like any run (its id, derived from the batch and the fact, is a UUID the API takes).
    const [one] = await pool.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM runs WHERE origin->>'batchId' = $1 LIMIT 1`, deleted.batchId);
    expect((await acme('GET', `${ws}/runs/${one!.id}`)).body).toMatchObject({ id: one!.id, origin: { type: 'backfill', batchId: deleted.batchId } });

    // A disabled agent is not backfilled (its batch would end at once); its dry run is answered.
    const refused = await acme('POST', `${ws}/agents/${disabled.agentId}/backfill`, request);
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 409, code: 'AGENT_DISABLED' });
    expect((await acme('POST', `${ws}/agents/${disabled.agentId}/backfill`, { ...request, dryRun: true })).body).toMatchObject({ dryRun: true, runs: 20 });
    // Another agent's batch id is not found under this one.
    const foreign = await acme('GET', `${ws}/agents/${disabled.agentId}/backfills/${deleted.batchId}`);
    expect({ status: foreign.status, code: foreign.body.error?.code }).toEqual({ status: 404, code: 'BACKFILL_NOT_FOUND' });
  });
});

async function count(pool: SqlPool, query: string, ...values: unknown[]): Promise<number> {
  const [row] = await pool.$queryRawUnsafe<Array<{ n: number | string }>>(query, ...values);
  return Number(row?.n ?? 0);
}
