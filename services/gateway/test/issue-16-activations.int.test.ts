import { Client } from 'pg';
import { EventActivationsResponseSchema, type AgentActivation } from '@switchyard/contracts';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * "Why didn't my agent run?" answered for one fact, against the real
 * gateway, event-log and matcher: each agent's outcome comes from what the
 * matcher recorded (runs, skips) and from the agent version in force when it
 * matched the fact.
 */
describe('issue 16: GET /events/{id}/activations', () => {
  let platform: TestPlatform;
  let admin: Api;
  let other: Api;
  let pg: Client;
  const ws = '/v1/workspaces/acme';
  const ids: Record<string, string> = {};

  const spec = (name: string, trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name,
    instructions: 'Do it.',
    model: { provider: 'scripted', name: 'demo' },
    script: [{ say: 'done' }],
    triggers: [trigger],
    ...extra,
  });
  const create = async (name: string, trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const created = await admin('POST', `${ws}/agents`, spec(name, trigger, extra));
    expect(created.status).toBe(201);
    ids[name] = created.body.id;
  };
  const post = async (payload: Record<string, unknown>, kind = 'scorecard.completed') => {
    const posted = await admin('POST', `${ws}/events`, { kind, subject: { type: 'scorecard', id: 'sc_9' }, payload });
    expect(posted.status).toBe(202);
    return posted.body.id as string;
  };
  /** The explanation once the matcher has decided for every agent. */
  const explained = (eventId: string) =>
    waitFor(
      async () => {
        const answer = await admin('GET', `${ws}/events/${eventId}/activations`);
        if (answer.status !== 200) return undefined;
        const body = EventActivationsResponseSchema.parse(answer.body);
        return body.agents.some((agent) => agent.outcome === 'pending') ? undefined : body;
      },
      { what: `the activations of ${eventId}`, timeoutMs: 30_000 },
    );
  const outcomeOf = (agents: AgentActivation[], name: string) => agents.find((agent) => agent.agentName === name);

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    await create('hit', { kind: 'scorecard.completed', filter: { path: 'payload.failures', op: 'gt', value: 0 } });
    await create('strict', { kind: 'scorecard.*', filter: { all: [{ path: 'kind', op: 'startsWith', value: 'scorecard' }, { path: 'payload.failures', op: 'gt', value: 5 }] } });
    await create('deploys', { kind: 'deploy.*' });
    await create('off', { kind: 'scorecard.completed' }, { enabled: false });
    await create('calm', { kind: 'scorecard.completed' }, { flow: { cooldownMs: 3_600_000 } });
  }, 180_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('names, for every agent, its run, the guard that skipped it, or the trigger clause that failed with the value seen', async () => {
    const first = await post({ failures: 3 });
    await explained(first);
    const eventId = await post({ failures: 3 });
    const body = await explained(eventId);
    await create('late', { kind: 'scorecard.completed' });

    expect(body).toMatchObject({ eventId, kind: 'scorecard.completed' });
    expect(body.agents.map((agent) => agent.agentName)).toEqual(['calm', 'deploys', 'hit', 'off', 'strict']);
    const hit = outcomeOf(body.agents, 'hit');
    expect(hit).toMatchObject({ outcome: 'activated', agentVersion: 1 });
    const { rows } = await pg.query(`SELECT id::text FROM runs WHERE agent_id = $1 AND event_id = $2`, [ids.hit, eventId]);
    expect(hit?.outcome === 'activated' && hit.runs.map((run) => run.id)).toEqual([rows[0].id]);
    expect(outcomeOf(body.agents, 'off')).toMatchObject({ outcome: 'skipped', reason: 'disabled' });
    // The first fact activated it; this one came within its cooldown.
    expect(outcomeOf(body.agents, 'calm')).toMatchObject({ outcome: 'skipped', reason: 'cooldown' });
    expect(outcomeOf(body.agents, 'deploys')).toEqual({
      agentId: ids.deploys,
      agentName: 'deploys',
      agentVersion: 1,
      outcome: 'no_match',
      triggers: [{ index: 0, kind: 'deploy.*', kindMatched: false }],
    });
    expect(outcomeOf(body.agents, 'strict')).toMatchObject({
      outcome: 'no_match',
      triggers: [{ index: 0, kind: 'scorecard.*', kindMatched: true, filter: { at: 'all.1', clause: { path: 'payload.failures', op: 'gt', value: 5 }, seen: 3 } }],
    });

    // An agent created after the fact did not exist for it.
    const again = await admin('GET', `${ws}/events/${eventId}/activations`);
    expect(outcomeOf(again.body.agents, 'late')).toMatchObject({ outcome: 'not_created_yet', agentVersion: null });
  });

  it('answers from the version in force when the fact was matched, not the latest', async () => {
    const eventId = await post({ failures: 1 }, 'scorecard.reviewed');
    await explained(eventId);
    const current = await admin('GET', `${ws}/agents/${ids.deploys}`);
    const saved = await admin('PUT', `${ws}/agents/${ids.deploys}`, spec('deploys', { kind: 'scorecard.reviewed' }), { 'if-match': `"${current.body.version}"` });
    expect(saved.status).toBe(200);
    const body = await explained(eventId);
    expect(outcomeOf(body.agents, 'deploys')).toMatchObject({ outcome: 'no_match', agentVersion: 1, triggers: [{ kind: 'deploy.*', kindMatched: false }] });
  });

  it('records the kill switch as the guard that skipped an agent', async () => {
    expect((await admin('PUT', `${ws}/settings`, { agentsPaused: true })).status).toBe(200);
    try {
      const eventId = await post({ failures: 9 });
      const body = await explained(eventId);
      expect(outcomeOf(body.agents, 'hit')).toMatchObject({ outcome: 'skipped', reason: 'paused' });
    } finally {
      await admin('PUT', `${ws}/settings`, { agentsPaused: false });
    }
  });

  it('refuses another workspace’s fact, an unknown one and a malformed id', async () => {
    const theirs = (await other('POST', '/v1/workspaces/other/events', { kind: 'scorecard.completed', subject: { type: 's', id: '1' } })).body.id;
    await waitFor(async () => (await other('GET', `/v1/workspaces/other/events/${theirs}`)).status === 200);
    expect((await other('GET', `/v1/workspaces/other/events/${theirs}/activations`)).status).toBe(200);
    expect((await admin('GET', `${ws}/events/${theirs}/activations`)).body.error.code).toBe('EVENT_NOT_FOUND');
    expect((await admin('GET', `/v1/workspaces/other/events/${theirs}/activations`)).body.error.code).toBe('WORKSPACE_FORBIDDEN');
    expect((await admin('GET', `${ws}/events/00000000-0000-4000-8000-000000000000/activations`)).status).toBe(404);
    expect((await admin('GET', `${ws}/events/not-a-uuid/activations`)).status).toBe(400);
    expect((await apiClient(platform.gatewayUrl)('GET', `${ws}/events/${theirs}/activations`)).status).toBe(401);
  });
});
