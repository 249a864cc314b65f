import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { apiClient, startLocalOpenAiServer, startTestMcpServer, startTestPlatform, waitFor, type LocalOpenAiRequest, type LocalOpenAiServer, type TestMcpHttpServer, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 35 §1–4, agent evals: a suite of ten recorded facts run as shadow
 * tries (gateway, event-log, matcher and runner processes, a scripted model)
 * at two versions, five trials each. Versions that differ in one rule —
 * version 2 pages on-call for high-priority tickets — change exactly the
 * three high-priority cases, significantly; identical versions show no
 * detectable difference. The MCP server records no call: trials never write.
 * The eval gate refuses what regresses, names the cases, and an admin's
 * override records its fact.
 */
jest.setTimeout(600_000);

const HIGH = new Set([1, 4, 7]);
const CASES = 10;

describe('issue 35: agent evals', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let judge: LocalOpenAiServer;
  /** What the judge was asked. */
  const judged: LocalOpenAiRequest[] = [];
  let pg: Client;
  let admin: Api;
  let member: Api;
  let other: Api;
  let acmeId: string;
  let agentId: string;
  let suiteId: string;
  const factIds: string[] = [];

  const spec = (extra: Record<string, unknown> = {}, rule = false) => ({
    name: 'triage',
    instructions: 'Triage the ticket.',
    model: { provider: 'scripted', name: 'script' },
    script: [
      { tool: 'platform.emit_event', arguments: { kind: 'ticket.triaged', subject: { type: 'ticket', id: '{{event.subject.id}}' } } },
      // The one rule version 2 adds: page on-call for high-priority tickets.
      ...(rule ? [{ tool: 'web.echo', arguments: { text: 'page on-call' }, when: { path: 'payload.priority', op: 'eq', value: 'high' } }] : []),
      { say: 'triaged {{event.subject.id}}' },
    ],
    tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }], platform: ['emit_event'] },
    triggers: [{ kind: 'ticket.opened' }],
    enabled: false,
    ...extra,
  });

  const evalDone = async (id: string) => {
    let run: any;
    await waitFor(async () => {
      run = (await admin('GET', `/v1/workspaces/acme/evals/${id}`)).body;
      return run.status === 'completed';
    }, { what: `eval ${id} completed`, timeoutMs: 400_000, intervalMs: 500 });
    return run;
  };

  const count = async (table: string) => Number((await pg.query(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [acmeId])).rows[0].n);

  beforeAll(async () => {
    mcp = await startTestMcpServer();
    // The judge fails a run that paged on-call; 100 input tokens at 1,000 USD per million: 0.1 USD an answer.
    judge = await startLocalOpenAiServer({
      respond: (request) => {
        judged.push(request);
        const paged = JSON.stringify(request.body).includes('web.echo');
        return { type: 'message', content: JSON.stringify({ pass: !paged, reason: paged ? 'it paged on-call' : 'quiet triage' }), toolCalls: [], usage: { prompt_tokens: 100, completion_tokens: 0 } };
      },
    });
    const judgeEnv = { EVAL_JUDGE_BASE_URL: judge.baseUrl, EVAL_JUDGE_PRICES: JSON.stringify({ 'judge-1': { input: 1000, output: 0 } }) };
    platform = await startTestPlatform({ matcher: true, env: { RUNNER_MCP_ALLOW_PRIVATE: 'true', RUNNER_MCP_CONNECT_TIMEOUT_MS: '20000', ...judgeEnv } });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    member = apiClient(platform.gatewayUrl, (await admin('POST', '/v1/workspaces/acme/tokens', { name: 'dev', role: 'member' })).body.token);
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    for (let i = 0; i < CASES; i++) {
      const posted = await admin('POST', '/v1/workspaces/acme/events', { kind: 'ticket.recorded', subject: { type: 'ticket', id: `T-${i}` }, payload: { priority: HIGH.has(i) ? 'high' : 'low' } });
      expect(posted.status).toBe(202);
      factIds.push(posted.body.id);
    }
    await waitFor(async () => (await admin('GET', `/v1/workspaces/acme/events/${factIds.at(-1)}`)).status === 200, { what: 'the facts stored' });
    const suite = await admin('POST', '/v1/workspaces/acme/eval-suites', {
      name: 'triage basics',
      cases: factIds.map((factId, i) => ({
        factId,
        expect: { wouldCall: [{ tool: 'platform.emit_event', args: { kind: 'ticket.triaged', 'subject.id': `T-${i}` } }], wouldNotCall: ['web.echo'], status: 'completed', summaryIncludes: `triaged T-${i}`, maxTokens: 10_000 },
      })),
    });
    expect(suite.status).toBe(201);
    expect(suite.body).toMatchObject({ version: 1, name: 'triage basics' });
    suiteId = suite.body.id;
    const gate = { evalGate: { suite: suiteId, trials: 5 } };
    const created = await admin('POST', '/v1/workspaces/acme/agents', spec(gate));
    expect(created.status).toBe(201);
    agentId = created.body.id;
    expect((await admin('PUT', `/v1/workspaces/acme/agents/${agentId}`, spec(gate, true))).body.version).toBe(2);
  }, 180_000);

  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await mcp?.close();
    await judge?.close();
  });

  it('versions as suites: a change is a new version, both readable', async () => {
    const body = { name: 'triage basics', cases: [{ fact: { kind: 'ticket.recorded', subject: { type: 'ticket', id: 'H' } }, expect: { status: 'completed' } }] };
    const created = (await admin('POST', '/v1/workspaces/acme/eval-suites', body)).body;
    const next = await admin('PUT', `/v1/workspaces/acme/eval-suites/${created.id}`, { ...body, name: 'renamed' });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ id: created.id, version: 2, name: 'renamed' });
    expect((await admin('GET', `/v1/workspaces/acme/eval-suites/${created.id}?version=1`)).body.name).toBe('triage basics');
    expect((await admin('GET', `/v1/workspaces/acme/eval-suites/${created.id}`)).body.version).toBe(2);
    const listed = (await admin('GET', '/v1/workspaces/acme/eval-suites')).body.suites;
    expect(listed.map((s: any) => [s.id, s.version])).toEqual(expect.arrayContaining([[created.id, 2], [suiteId, 1]]));
    expect((await other('GET', `/v1/workspaces/other/eval-suites/${created.id}`)).status).toBe(404);
  });

  it('finds a change on exactly the cases one rule affects, and the trials never write', async () => {
    const started = await admin('POST', `/v1/workspaces/acme/agents/${agentId}/evals`, { suite: suiteId, versions: [1, 2], trials: 5, budgetUsd: 100 });
    expect(started.status).toBe(201);
    const done = await evalDone(started.body.id);
    expect(done).toMatchObject({ status: 'completed', trialsEnded: 100, trialsTotal: 100, estimateUsd: 100, targets: [{ version: 1 }, { version: 2 }] });
    const { result } = done;
    expect(result.diff.verdict).toBe('worse');
    expect([...result.diff.drivers].sort()).toEqual([...HIGH].sort());
    for (const c of result.diff.cases) {
      expect(c.changed).toBe(HIGH.has(c.caseIndex));
      expect([c.passRateA, c.passRateB]).toEqual(HIGH.has(c.caseIndex) ? [1, 0] : [1, 1]);
      if (c.changed) expect(c.qValue).toBeLessThan(0.05);
    }
    expect(result.passed).toBe(false);
    expect([...result.failingCases].sort()).toEqual([...HIGH].sort());
    const failed = result.cases[1].trials.find((t: any) => t.target === 1);
    expect(failed.failures).toEqual(['wouldNotCall web.echo: called']);
    expect(result.cases[0].trials).toHaveLength(10);
    expect(result.tokens).toBeGreaterThanOrEqual(0);
    // Trials are tries: the external server got no call, and no fact of them was recorded.
    expect(mcp.calls).toEqual([]);
    await platform.factsRecorded();
    expect((await pg.query(`SELECT count(*)::int AS n FROM platform_events WHERE workspace_id = $1 AND kind = 'ticket.triaged'`, [acmeId])).rows[0].n).toBe(0);
    const listed = (await admin('GET', `/v1/workspaces/acme/agents/${agentId}/evals`)).body.evals;
    expect(listed.map((e: any) => e.id)).toContain(started.body.id);
  });

  it('the gate refuses enabling the regressing version, naming the cases; an admin override records its fact', async () => {
    const refused = await admin('POST', `/v1/workspaces/acme/agents/${agentId}/enable`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('EVAL_GATE');
    expect([...refused.body.error.details.failingCases].sort()).toEqual([...HIGH].sort());
    expect(refused.body.error.details).toMatchObject({ version: 2, suite: suiteId });
    expect((await admin('GET', `/v1/workspaces/acme/agents/${agentId}`)).body.enabled).toBe(false);

    const byMember = await member('POST', `/v1/workspaces/acme/agents/${agentId}/enable`, { overrideEvalGate: { reason: 'I want it' } });
    expect(byMember.status).toBe(403);
    const overridden = await admin('POST', `/v1/workspaces/acme/agents/${agentId}/enable`, { overrideEvalGate: { reason: 'paging is the point of v2' } });
    expect(overridden.status).toBe(200);
    expect(overridden.body.enabled).toBe(true);
    await platform.factsRecorded();
    const facts = (await pg.query(`SELECT kind, payload FROM platform_events WHERE workspace_id = $1 AND subject_id = $2 ORDER BY seq`, [acmeId, agentId])).rows;
    const fact = facts.find((f) => f.kind === 'agent.eval_gate_overridden');
    expect(fact.payload).toMatchObject({ version: 2, suite: suiteId, reason: 'paging is the point of v2' });
    expect(facts.filter((f) => f.kind === 'agent.eval_gate_overridden')).toHaveLength(1);
    expect(facts.some((f) => f.kind === 'agent.enabled')).toBe(true);
    expect((await admin('POST', `/v1/workspaces/acme/agents/${agentId}/disable`)).status).toBe(200);
  });

  it('identical versions show no detectable difference, and a passing eval lets a pin through', async () => {
    const same = spec({ evalGate: { suite: suiteId, trials: 5 }, description: 'the same rules as version 1' });
    expect((await admin('PUT', `/v1/workspaces/acme/agents/${agentId}`, same)).body.version).toBe(3);
    // Version 3 runs (the latest, unpinned); pinning version 1 needs an eval with 1 as its candidate.
    const refused = await admin('PUT', `/v1/workspaces/acme/agents/${agentId}/pin`, { version: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toMatchObject({ version: 1, evalId: null, failingCases: [] });
    const started = await admin('POST', `/v1/workspaces/acme/agents/${agentId}/evals`, { suite: suiteId, versions: [3, 1], trials: 5, budgetUsd: 100 });
    const done = await evalDone(started.body.id);
    expect(done.result.diff.verdict).toBe('no detectable difference');
    expect(done.result.diff.drivers).toEqual([]);
    expect(done.result.diff.cases.every((c: any) => !c.changed)).toBe(true);
    expect(done.result.passed).toBe(true);
    expect((await admin('PUT', `/v1/workspaces/acme/agents/${agentId}/pin`, { version: 1 })).status).toBe(200);
    expect((await admin('PUT', `/v1/workspaces/acme/agents/${agentId}/pin`, { version: 2 })).status).toBe(409);
    expect(mcp.calls).toEqual([]);
  });

  it('answers bad input with a 4xx and a stable code, and starts nothing', async () => {
    const foreign = await other('POST', '/v1/workspaces/other/events', { kind: 'ticket.recorded', subject: { type: 'ticket', id: 'O' } });
    await waitFor(async () => (await other('GET', `/v1/workspaces/other/events/${foreign.body.id}`)).status === 200, { what: 'the foreign fact stored' });
    const before = { suites: await count('eval_suites'), evals: await count('eval_runs'), tries: await count('agent_tries') };
    const badSuite = await admin('POST', '/v1/workspaces/acme/eval-suites', { name: 'x', cases: [{ factId: foreign.body.id, expect: {} }] });
    expect([badSuite.status, badSuite.body.error.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    const start = (body: Record<string, unknown>) => admin('POST', `/v1/workspaces/acme/agents/${agentId}/evals`, { suite: suiteId, versions: [1, 2], trials: 5, budgetUsd: 100, ...body });
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ trials: 0 }, 400, 'VALIDATION_FAILED'],
      [{ budgetUsd: 99 }, 400, 'EVAL_BUDGET_EXCEEDED'],
      [{ suite: randomUUID() }, 404, 'EVAL_SUITE_NOT_FOUND'],
      [{ versions: [1, 9] }, 404, 'AGENT_VERSION_NOT_FOUND'],
      [{ versions: undefined }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await start(body);
      expect([body, answer.status, answer.body.error?.code]).toEqual([body, status, code]);
    }
    expect((await admin('GET', `/v1/workspaces/acme/evals/${randomUUID()}`)).body.error.code).toBe('EVAL_NOT_FOUND');
    // Under a gate, a pin of a version that does not exist is still that.
    expect((await admin('PUT', `/v1/workspaces/acme/agents/${agentId}/pin`, { version: 99 })).body.error.code).toBe('AGENT_VERSION_NOT_FOUND');
    expect((await member('POST', `/v1/workspaces/acme/agents/${randomUUID()}/evals`, { suite: suiteId, versions: [1], trials: 1, budgetUsd: 10 })).body.error.code).toBe('AGENT_NOT_FOUND');
    expect({ suites: await count('eval_suites'), evals: await count('eval_runs'), tries: await count('agent_tries') }).toEqual(before);
  });

  it('asks the judge once per trial with the rubric and the transcript, and counts its cost', async () => {
    const rubric = 'A good run triages the ticket and does not page on-call.';
    const suite = await admin('POST', '/v1/workspaces/acme/eval-suites', {
      name: 'judged',
      cases: [0, 1].map((i) => ({ factId: factIds[i], expect: { status: 'completed' }, judge: { model: 'judge-1', rubric } })),
    });
    expect(suite.status).toBe(201);
    // The estimate counts the judge's ceiling: 4 runs at 1 USD, and 4 calls of at most ~16.5k prompt tokens at 1,000 USD per million.
    const refused = await admin('POST', `/v1/workspaces/acme/agents/${agentId}/evals`, { suite: suite.body.id, versions: [2], trials: 2, budgetUsd: 10 });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'EVAL_BUDGET_EXCEEDED']);
    const { estimateUsd, judgeEstimateUsd } = refused.body.error.details;
    expect(judgeEstimateUsd).toBeGreaterThan(4 * 16);
    expect(judgeEstimateUsd).toBeLessThan(4 * 17);
    expect(estimateUsd).toBeCloseTo(4 + judgeEstimateUsd, 6);
    const started = await admin('POST', `/v1/workspaces/acme/agents/${agentId}/evals`, { suite: suite.body.id, versions: [2], trials: 2, budgetUsd: 100 });
    expect(started.status).toBe(201);
    const done = await evalDone(started.body.id);
    expect(judged).toHaveLength(4);
    for (const request of judged) {
      expect(request.body?.max_tokens).toBe(400);
      const text = JSON.stringify(request.body);
      expect(request.body?.model).toBe('judge-1');
      expect(text).toContain(rubric);
      expect(text).toMatch(/triaged T-[01]/);
    }
    const [quiet, paged] = done.result.cases;
    expect(quiet.trials.map((t: any) => [t.passed, t.judge.reason])).toEqual([[true, 'quiet triage'], [true, 'quiet triage']]);
    expect(paged.trials.map((t: any) => [t.passed, t.failures])).toEqual([[false, ['judge: it paged on-call']], [false, ['judge: it paged on-call']]]);
    expect(done.result.judgeCostUsd).toBeCloseTo(0.4, 6);
    expect(done.result.costUsd).toBeCloseTo(0.4, 6);
    expect(done.result.failingCases).toEqual([1]);
    // Read again: settled once, the judge is not asked again.
    await admin('GET', `/v1/workspaces/acme/evals/${started.body.id}`);
    expect(judged).toHaveLength(4);
  });

  it('no save makes an unevaluated version of a gated agent run: create enabled, a new version of an enabled unpinned agent, PUT enabled: 409 EVAL_GATE', async () => {
    const gate = { evalGate: { suite: suiteId, trials: 5 } };
    const agents = '/v1/workspaces/acme/agents';
    const createdEnabled = await admin('POST', agents, spec({ ...gate, name: 'gated-at-once', enabled: true }));
    expect([createdEnabled.status, createdEnabled.body.error.code]).toEqual([409, 'EVAL_GATE']);
    expect(createdEnabled.body.error.details).toMatchObject({ id: null, version: 1, suite: suiteId, evalId: null });
    expect((await pg.query(`SELECT count(*)::int AS n FROM agents WHERE workspace_id = $1 AND name = 'gated-at-once'`, [acmeId])).rows[0].n).toBe(0);

    const gated = (await admin('POST', agents, spec({ ...gate, name: 'gated' }))).body.id;
    expect((await admin('POST', `${agents}/${gated}/enable`, { overrideEvalGate: { reason: 'version 1 is what ran before the gate' } })).status).toBe(200);
    const versions = async () => Number((await pg.query(`SELECT count(*)::int AS n FROM agent_versions WHERE agent_id = $1`, [gated])).rows[0].n);
    // Enabled and unpinned: a new version would run at once.
    const next = spec({ ...gate, name: 'gated', description: 'a change', enabled: undefined });
    const saved = await admin('PUT', `${agents}/${gated}`, next);
    expect([saved.status, saved.body.error.code]).toEqual([409, 'EVAL_GATE']);
    expect(saved.body.error.details).toMatchObject({ id: gated, version: 2, suite: suiteId });
    expect(await versions()).toBe(1);
    // The same spec again is no new version: allowed.
    expect((await admin('PUT', `${agents}/${gated}`, spec({ ...gate, name: 'gated', enabled: undefined }))).status).toBe(200);
    // Pinned, the new version is saved and does not run until an eval passes and a pin (or unpin) moves to it.
    expect((await admin('PUT', `${agents}/${gated}/pin`, { version: 1 })).status).toBe(200);
    expect((await admin('PUT', `${agents}/${gated}`, next)).body).toMatchObject({ version: 2, pinnedVersion: 1, enabled: true });
    expect((await admin('DELETE', `${agents}/${gated}/pin`)).body.error.code).toBe('EVAL_GATE');
    // Disabled, `PUT … enabled: true` is an enable: gated like POST /enable.
    expect((await admin('POST', `${agents}/${gated}/disable`)).status).toBe(200);
    const enabling = await admin('PUT', `${agents}/${gated}`, { ...next, enabled: true });
    expect([enabling.status, enabling.body.error.code]).toEqual([409, 'EVAL_GATE']);
    expect((await admin('GET', `${agents}/${gated}`)).body.enabled).toBe(false);
    // A bundle is imported disabled, whatever its agents were: enabling it then passes the gate.
    const bundle = (await admin('GET', `${agents}/${gated}/export`)).body;
    const imported = await other('POST', '/v1/workspaces/other/agents:import', bundle);
    expect(imported.status).toBe(201);
    expect((await other('GET', `/v1/workspaces/other/agents/${imported.body.agents[0].id}`)).body.enabled).toBe(false);
  });
});
