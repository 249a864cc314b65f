import { Client } from 'pg';
import { apiClient, openSse, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(300_000);

const ws = '/v1/workspaces/acme';

/**
 * Decision 0058, "Streaming": `GET /evals/{id}/stream` sends each trial as
 * its run ends and the settled verdict, then ends; Last-Event-ID resumes it.
 * The eval is started with no runner, so its trials wait queued while the
 * stream is open; a runner started afterwards runs them. The agent page's
 * gate state (`GET /agents/{id}/eval-gate`) is read here too. Real gateway,
 * event-log and runner processes, a scripted model.
 */
describe('eval progress stream', () => {
  let platform: TestPlatform;
  let admin: ReturnType<typeof apiClient>;
  let adminToken: string;
  let otherToken: string;
  let evalId: string;
  let agentId: string;
  let suiteId: string;

  const open = (token: string | undefined, path: string, headers: Record<string, string> = {}) =>
    openSse(`${platform.gatewayUrl}${path}`, { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers });

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { STREAM_AUTH_RECHECK_MS: '300' } });
    adminToken = await platform.createWorkspace('acme');
    otherToken = await platform.createWorkspace('other');
    admin = apiClient(platform.gatewayUrl, adminToken);
    const agent = await admin('POST', `${ws}/agents`, {
      name: 'greeter',
      instructions: 'Greet.',
      model: { provider: 'scripted', name: 'script' },
      script: [{ say: 'hello {{event.subject.id}}' }],
      triggers: [{ kind: 'visitor.arrived' }],
      enabled: false,
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    const cases = ['ann', 'bob'].map((id) => ({ fact: { kind: 'visitor.arrived', subject: { type: 'visitor', id } }, expect: { status: 'completed', summaryIncludes: 'hello ann' } }));
    const suite = await admin('POST', `${ws}/eval-suites`, { name: 'greetings', cases });
    expect(suite.status).toBe(201);
    suiteId = suite.body.id;
    const started = await admin('POST', `${ws}/agents/${agent.body.id}/evals`, { suite: suite.body.id, versions: [1], trials: 2, budgetUsd: 100 });
    expect(started.status).toBe(201);
    evalId = started.body.id;
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('refuses without a token, a bad id, a foreign cursor and another workspace (404)', async () => {
    const noToken = await open(undefined, `${ws}/evals/${evalId}/stream`);
    expect(noToken.status).toBe(401);
    const badId = await fetch(`${platform.gatewayUrl}${ws}/evals/nope/stream`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect([badId.status, ((await badId.json()) as any).error.code]).toEqual([400, 'VALIDATION_FAILED']);
    for (const cursor of ['!!', 'AAAA']) {
      const bad = await fetch(`${platform.gatewayUrl}${ws}/evals/${evalId}/stream`, { headers: { authorization: `Bearer ${adminToken}`, 'last-event-id': cursor } });
      expect([cursor, bad.status, ((await bad.json()) as any).error.code]).toEqual([cursor, 400, 'VALIDATION_FAILED']);
    }
    const foreign = await fetch(`${platform.gatewayUrl}/v1/workspaces/other/evals/${evalId}/stream`, { headers: { authorization: `Bearer ${otherToken}` } });
    expect([foreign.status, ((await foreign.json()) as any).error.code]).toEqual([404, 'EVAL_NOT_FOUND']);
    const unknown = await fetch(`${platform.gatewayUrl}${ws}/evals/${crypto.randomUUID()}/stream`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(unknown.status).toBe(404);
  });

  it('ends an open stream once its token is revoked', async () => {
    const viewer = (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body as { id: string; token: string };
    const stream = await open(viewer.token, `${ws}/evals/${evalId}/stream`);
    expect(stream.status).toBe(200);
    expect((await admin('DELETE', `${ws}/tokens/${viewer.id}`)).status).toBe(204);
    const events = await stream.waitFor(1, 30_000);
    expect(events[0]).toMatchObject({ event: 'error' });
    expect(JSON.parse(events[0]!.data).code).toBe('UNAUTHENTICATED');
    stream.close();
  });

  it('streams each trial as it ends, then the verdict; Last-Event-ID resumes', async () => {
    const stream = await open(adminToken, `${ws}/evals/${evalId}/stream`);
    expect(stream.status).toBe(200);
    await platform.startRunner();
    const events = await stream.waitFor(5, 240_000);
    const trials = events.filter((e) => e.event === 'trial').map((e) => JSON.parse(e.data).trial);
    expect(trials.map((t) => `${t.caseIndex}/${t.target}/${t.trial}`).sort()).toEqual(['0/0/0', '0/0/1', '1/0/0', '1/0/1']);
    for (const t of trials) {
      expect(t).toMatchObject({ status: 'completed', judgePending: false });
      expect(t.checksPassed).toBe(t.caseIndex === 0);
    }
    expect(trials.find((t) => t.caseIndex === 1).failures).toEqual(['summaryIncludes: "hello ann" not in the summary']);
    const verdict = events.at(-1)!;
    expect(verdict.event).toBe('verdict');
    const settled = JSON.parse(verdict.data).eval;
    expect(settled).toMatchObject({ id: evalId, status: 'completed', trialsEnded: 4, result: { passed: false, failingCases: [1] } });
    const cursor = events.filter((e) => e.event === 'trial' && e.id).at(-1)!.id!;
    stream.close();

    // A client holding every trial gets the verdict alone; one holding none gets them all again.
    const resumed = await open(adminToken, `${ws}/evals/${evalId}/stream`, { 'last-event-id': cursor });
    expect((await resumed.waitFor(1, 30_000)).map((e) => e.event)).toEqual(['verdict']);
    const fresh = await open(adminToken, `${ws}/evals/${evalId}/stream`, { 'last-event-id': 'AA' });
    await waitFor(async () => fresh.events.some((e) => e.event === 'verdict'), { what: 'the verdict', timeoutMs: 30_000 });
    expect(fresh.events.map((e) => e.event)).toEqual(['trial', 'trial', 'trial', 'trial', 'verdict']);
    resumed.close();
    fresh.close();
  });

  it("reads the gate of the version that runs: none, no eval, blocked by a failing eval, allowed with allowRegression", async () => {
    const gateOf = async () => (await admin('GET', `${ws}/agents/${agentId}/eval-gate`)).body;
    expect(await gateOf()).toEqual({ gate: null, version: 1, evalId: null, passed: null, failingCases: [], allowed: true });
    const spec = (await admin('GET', `${ws}/agents/${agentId}`)).body.spec;
    const gated = (allowRegression: boolean) => ({ ...spec, evalGate: { suite: suiteId, trials: 2, allowRegression } });
    expect((await admin('PUT', `${ws}/agents/${agentId}`, gated(false))).status).toBe(200);
    expect(await gateOf()).toMatchObject({ version: 2, evalId: null, passed: null, allowed: false });
    // Version 1 runs again (an admin's override: its eval failed case 1).
    expect((await admin('PUT', `${ws}/agents/${agentId}/pin`, { version: 1, overrideEvalGate: { reason: 'the test' } })).status).toBe(200);
    expect(await gateOf()).toEqual({ gate: { suite: suiteId, trials: 2, allowRegression: false }, version: 1, evalId, passed: false, failingCases: [1], allowed: false });
    expect((await admin('PUT', `${ws}/agents/${agentId}`, gated(true))).status).toBe(200);
    expect(await gateOf()).toMatchObject({ version: 1, evalId, passed: false, allowed: true });
    const foreign = await fetch(`${platform.gatewayUrl}/v1/workspaces/other/agents/${agentId}/eval-gate`, { headers: { authorization: `Bearer ${otherToken}` } });
    expect([foreign.status, ((await foreign.json()) as any).error.code]).toEqual([404, 'AGENT_NOT_FOUND']);
  });

  it('starts the trials a dead start left (rows written, none started, no runs), then streams them and the verdict', async () => {
    // What a gateway that died right after writing the eval leaves: the eval and its trial rows, nothing started.
    const stranded = crypto.randomUUID();
    const pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    try {
      await pg.query(
        `INSERT INTO eval_runs (id, workspace_id, agent_id, suite_id, suite_version, targets, trials, budget_usd, estimate_usd, status, created_by)
         SELECT $1, workspace_id, agent_id, suite_id, suite_version, targets, trials, budget_usd, estimate_usd, 'running', created_by FROM eval_runs WHERE id = $2`,
        [stranded, evalId],
      );
      await pg.query(`INSERT INTO eval_trials (run_id, eval_id, case_index, target, trial) SELECT gen_random_uuid(), $1, case_index, target, trial FROM eval_trials WHERE eval_id = $2`, [stranded, evalId]);
      const unstarted = await pg.query(`SELECT count(*)::int AS n FROM eval_trials t WHERE eval_id = $1 AND started_at IS NULL AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = t.run_id)`, [stranded]);
      expect(unstarted.rows[0].n).toBe(4);
      // The stream alone (no other read) starts them: a trial row that exists but is not started is not ended.
      const stream = await open(adminToken, `${ws}/evals/${stranded}/stream`);
      expect(stream.status).toBe(200);
      const events = await stream.waitFor(5, 240_000);
      expect(events.map((e) => e.event)).toEqual(['trial', 'trial', 'trial', 'trial', 'verdict']);
      expect(JSON.parse(events.at(-1)!.data).eval).toMatchObject({ id: stranded, status: 'completed', trialsEnded: 4, result: { passed: false, failingCases: [1] } });
      stream.close();
      const started = await pg.query(`SELECT count(*)::int AS n FROM eval_trials WHERE eval_id = $1 AND started_at IS NOT NULL`, [stranded]);
      expect(started.rows[0].n).toBe(4);
    } finally {
      await pg.end();
    }
  });
});
