import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * A run keeps the kind and subject of the fact that started it (`trigger`):
 * in the runs API and in its status facts, so that a live view shows what
 * woke a run without reading the fact. A manual run has none; a retry keeps
 * its original's.
 */
jest.setTimeout(60_000);

describe('a run keeps its trigger', () => {
  let platform: TestPlatform;
  afterAll(async () => platform?.stop());

  it('in GET /runs, in its agent.run.* facts and in a retry; a manual run has none', async () => {
    platform = await startTestPlatform({ matcher: true, runners: 1 });
    const token = await platform.createWorkspace('kept');
    const api = apiClient(platform.gatewayUrl, token);
    const base = '/v1/workspaces/kept';
    const agent = (await api('POST', `${base}/agents`, {
      name: 'kept', instructions: 'Look.', model: { provider: 'scripted', name: 'script' }, script: [{ say: 'ok' }],
      triggers: [{ kind: 'build.failed' }],
    })).body.id as string;
    const posted = await api('POST', `${base}/events`, { kind: 'build.failed', subject: { type: 'build', id: 'b-7' }, payload: { failures: 2 } });
    expect(posted.status).toBe(202);
    const eventId = posted.body.id as string;
    const trigger = { eventId, kind: 'build.failed', subject: { type: 'build', id: 'b-7' } };

    const run = await waitFor(async () => (await api('GET', `${base}/runs?agentId=${agent}`)).body.runs[0], { what: 'the trigger run' });
    expect(run.trigger).toEqual(trigger);
    expect((await api('GET', `${base}/runs/${run.id}`)).body.trigger).toEqual(trigger);
    const queued = await waitFor(async () => (await api('GET', `${base}/events?kind=agent.run.queued`)).body.events.find((fact: { subject: { id: string } }) => fact.subject.id === run.id), { what: 'its queued fact' });
    expect(queued.payload).toMatchObject({ eventId, trigger: { kind: 'build.failed', subject: { type: 'build', id: 'b-7' } } });

    // A retry is of an ended run.
    await waitFor(async () => (await api('GET', `${base}/runs/${run.id}`)).body.status === 'completed' || undefined, { what: 'the run completed' });
    const retry = await api('POST', `${base}/runs/${run.id}/retry`);
    expect(retry.status).toBe(201);
    expect(retry.body.trigger).toEqual(trigger);

    const manual = await api('POST', `${base}/agents/${agent}/runs`, { input: 'look now' });
    expect(manual.status).toBe(201);
    expect(manual.body.trigger).toBeNull();
  });
});
