import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

const ADMIN_TOKEN = 'operator-token-0123456789abcdef0123456789';

/**
 * Issue 36 §8 (an outside attack's finding): the BullMQ dashboard's "pause
 * all" paused the queues, yet runs kept starting through the run queue's
 * sweep. Against the real gateway (its bull-board route), matcher and
 * runner processes: paused from the dashboard, facts that activate an agent
 * queue runs that do not start — even once the sweep has seen them old
 * enough to start — and start when the dashboard resumes.
 */
describe('issue 36: the dashboard pause stops runs from starting', () => {
  let platform: TestPlatform;
  let admin: Api;
  let pg: Client;
  let agentId: string;
  const ws = '/v1/workspaces/acme';
  const dashboard = (action: 'pause' | 'resume') =>
    fetch(`${platform.gatewayUrl}/admin/queues/api/queues/${action}`, { method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const runs = async () => (await pg.query('SELECT status, started_at FROM runs WHERE agent_id = $1 ORDER BY queued_at', [agentId])).rows as Array<{ status: string; started_at: Date | null }>;
  const post = async (n: number) => {
    const posted = await admin('POST', `${ws}/events`, { kind: 'deploy.finished', subject: { type: 'deploy', id: `d${n}` }, payload: { n } });
    expect(posted.status).toBe(202);
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, RUNNER_SWEEP_INTERVAL_MS: '300' } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const created = await admin('POST', `${ws}/agents`, {
      name: 'deployer',
      instructions: 'Report.',
      model: { provider: 'scripted', name: 'demo' },
      script: [{ say: 'done' }],
      triggers: [{ kind: 'deploy.finished' }],
    });
    expect(created.status).toBe(201);
    agentId = created.body.id;
  }, 180_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('starts nothing while paused from the dashboard, and everything once resumed', async () => {
    await post(0);
    await waitFor(async () => ((await runs())[0]?.status === 'completed' ? true : undefined), { what: 'the first run completed', timeoutMs: 30_000 });

    expect((await dashboard('pause')).status).toBe(200);
    for (const n of [1, 2, 3]) await post(n);
    await waitFor(async () => ((await runs()).length === 4 ? true : undefined), { what: 'three runs queued by the matcher', timeoutMs: 30_000 });
    // The sweep has listed the lane — its runs are older than its age to start them — and started nothing.
    const lane = `agent:${agentId}`;
    const sweptAt = platform.runners[0]!.output().length;
    const sweptOrStarted = async () => platform.runners[0]!.output().slice(sweptAt).includes(lane) || (await runs()).slice(1).some((run) => run.started_at !== null);
    await waitFor(async () => ((await sweptOrStarted()) ? true : undefined), { what: 'a sweep of the paused lane (or a run started)', timeoutMs: 30_000 });
    expect(platform.runners[0]!.output().slice(sweptAt)).toContain('run starts are paused');
    expect((await runs()).slice(1)).toEqual([1, 2, 3].map(() => ({ status: 'queued', started_at: null })));

    expect((await dashboard('resume')).status).toBe(200);
    await waitFor(async () => ((await runs()).every((run) => run.status === 'completed') ? true : undefined), { what: 'the paused runs completed', timeoutMs: 30_000 });
  });
});
