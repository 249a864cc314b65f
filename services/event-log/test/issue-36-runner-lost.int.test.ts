import { OPS_FACT_KINDS, RunnerLostPayloadSchema } from '@switchyard/contracts';
import { waitFor } from '@switchyard/testing';
import { startNotifierPlatform, type NotifierPlatform, type TestWorkspace } from '../../notifier/test/notifier-platform';
import { scripted } from '../../runner/test/runner-test-helpers';

/*
 * Issue 36, end to end over real processes (gateway, two event-logs, matcher,
 * notifier, runners) with a local server speaking Mattermost's API: a runner
 * SIGKILLed with runs of two agents in flight is found lost by another
 * runner's sweep once its leases lapse; exactly one `platform.runner_lost`
 * fact is recorded in the workspace it affected (none in another), naming the
 * runner and both runs, and a notification rule on `platform.*` posts it.
 */
jest.setTimeout(180_000);

/** Short leases and a quick sweep and watcher, so the loss shows in seconds rather than the production 30 s. */
const FAST = {
  RUNNER_LEASE_MS: '2000',
  RUNNER_LOCK_DURATION_MS: '2000',
  RUNNER_STALLED_INTERVAL_MS: '1000',
  RUNNER_SWEEP_INTERVAL_MS: '300',
  OPS_FACTS_ENABLED: 'true',
  OPS_WATCH_INTERVAL_MS: '200',
  OPS_FACT_WINDOW_MS: '600000',
};

describe('a killed runner (real processes)', () => {
  let env: NotifierPlatform;
  afterAll(async () => env?.stop());

  it('produces one platform.runner_lost fact in the workspace it affected, which a Mattermost rule on platform.* delivers', async () => {
    env = await startNotifierPlatform(FAST);
    const { platform, pg, mattermost } = env;
    await Promise.all([platform.startEventLog(), platform.startMatcher()]);
    const acme = await env.workspace('acme');
    const globex = await env.workspace('globex');
    const channel = mattermost.newChannelId();
    const rule = { id: 'platform-trouble', kind: 'platform.*', channel, template: ':rotating_light: {{kind}} in {{workspace}}: {{payload.summary}}' };
    const settings = await acme.admin('PUT', '/v1/workspaces/acme/settings/notifications', {
      connection: { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot' },
      rules: [rule],
    });
    expect(settings.status).toBe(200);

    const victim = await platform.startRunner();
    const agents = await Promise.all(['slow-a', 'slow-b'].map((name) => createAgent(acme, name)));
    await createAgent(globex, 'idle');
    for (const subject of ['one', 'two']) {
      expect((await acme.admin('POST', '/v1/workspaces/acme/events', { kind: 'work.start', subject: { type: 'job', id: subject } })).status).toBe(202);
    }
    const inFlight = await waitFor(
      async () => {
        const { rows } = await pg.query<{ id: string; lease_owner: string }>(`SELECT id::text, lease_owner FROM runs WHERE agent_id = ANY($1::uuid[]) AND status = 'running'`, [agents]);
        return rows.length === 2 ? rows : undefined;
      },
      { timeoutMs: 60_000, what: 'both runs in flight' },
    );
    const runner = inFlight[0]!.lease_owner;
    expect(inFlight.every((row) => row.lease_owner === runner)).toBe(true);
    await victim.stop('SIGKILL');
    await platform.startRunner();

    const lostFacts = async (ws: TestWorkspace) =>
      ((await ws.admin('GET', `/v1/workspaces/${ws.slug}/events?kind=${OPS_FACT_KINDS.runnerLost}`)).body.events as Array<{ subject: unknown; actor: unknown; payload: unknown }>);
    const [fact] = await waitFor(async () => ((await lostFacts(acme)).length > 0 ? lostFacts(acme) : undefined), { timeoutMs: 60_000, what: 'the runner_lost fact' });
    expect(fact).toMatchObject({ subject: { type: 'platform', id: `runner:${runner}` }, actor: { type: 'system', id: 'switchyard' } });
    const payload = RunnerLostPayloadSchema.parse(fact!.payload);
    expect(payload).toMatchObject({ runner, runCount: 2 });
    expect(payload.runs.map((run) => run.runId).sort()).toEqual(inFlight.map((row) => row.id).sort());

    const [post] = await waitFor(async () => (mattermost.postsIn(channel).length > 0 ? mattermost.postsIn(channel) : undefined), { timeoutMs: 30_000, what: 'the Mattermost post' });
    expect(post!.message).toBe(`:rotating_light: platform.runner_lost in acme: ${payload.summary}`);
    expect(post!.message).toContain(runner);

    // Settled: no run is leased to the dead runner any more, every lapse note was handled, the outbox relayed.
    await waitFor(
      async () => {
        const { rows } = await pg.query<{ leased: number; notes: number; outbox: number }>(
          `SELECT (SELECT count(*)::int FROM runs WHERE lease_owner = $1) AS leased, (SELECT count(*)::int FROM run_lease_lapses) AS notes, (SELECT count(*)::int FROM fact_outbox) AS outbox`,
          [runner],
        );
        return rows[0]!.leased === 0 && rows[0]!.notes === 0 && rows[0]!.outbox === 0;
      },
      { timeoutMs: 30_000, what: "the dead runner's leases taken over and noted" },
    );
    expect(await lostFacts(acme)).toHaveLength(1);
    expect(await lostFacts(globex)).toEqual([]);
    await waitFor(async () => (await env.deliveries(acme.id)) === 1, { what: 'the delivery recorded' });
    expect(mattermost.postsIn(channel)).toHaveLength(1);
  });
});

/** A scripted agent of three minute-long steps on `work.start`: its runs stay in flight until their runner dies. */
async function createAgent(ws: TestWorkspace, name: string): Promise<string> {
  const created = await ws.admin('POST', `/v1/workspaces/${ws.slug}/agents`, scripted(name, 'work.start', 3, 60_000));
  expect(created.status).toBe(201);
  return created.body.id as string;
}
