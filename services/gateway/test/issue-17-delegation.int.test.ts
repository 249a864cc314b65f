import { randomUUID } from 'node:crypto';
import { mailboxStream } from '@switchyard/contracts';
import { SessionMailbox, toKey } from '@switchyard/redis';
import { apiClient, setRunColumns, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, connectMcp } from './mcp-client';
import { agentSpec, AgentSessions, factsOf, type AgentSession, type Api } from './team-helpers';

/**
 * Issue 17, item 7: collaborator rules over REST and `delegate_to_agent`
 * over MCP, against a real gateway, event-log and matcher as processes. The
 * delegation matrix gives the documented result for each target; a child run
 * is caused by its parent one step deeper and told its objective through its
 * mailbox; its result comes back to the parent's mailbox (or, the parent
 * having ended, is recorded as a fact).
 */
describe('issue 17: collaborators and delegation', () => {
  let platform: TestPlatform;
  let sessions: AgentSessions;
  let admin: Api;
  let viewer: Api;
  let other: Api;
  let acmeId: string;
  let agents: Record<'lead' | 'helper' | 'shy' | 'loner' | 'gone' | 'off' | 'theirs', string>;
  let lead: AgentSession;
  let mcp: McpClient;
  const ws = '/v1/workspaces/acme';

  const rule = (from: string, to: string, enabled: boolean) => admin('PUT', `${ws}/agents/${from}/collaborators/${to}`, { enabled });
  const mailboxEntries = async (sessionId: string) => {
    const entries = await platform.redis.redis.xrange(toKey(platform.redis.prefix, ...mailboxStream(sessionId)), '-', '+');
    return entries.map(([, fields]) => JSON.parse(fields[1]!));
  };
  const runCount = async () => Number((await sessions.db.query('SELECT count(*) FROM runs')).rows[0].count);

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    sessions = new AgentSessions(platform);
    await sessions.connect();
    acmeId = await sessions.workspaceId('acme');
    const make = async (api: Api, slug: string, name: string) => (await api('POST', `/v1/workspaces/${slug}/agents`, agentSpec(name))).body.id as string;
    agents = {
      lead: await make(admin, 'acme', 'lead'),
      helper: await make(admin, 'acme', 'helper'),
      shy: await make(admin, 'acme', 'shy'),
      loner: await make(admin, 'acme', 'loner'),
      gone: await make(admin, 'acme', 'gone'),
      off: await make(admin, 'acme', 'off'),
      theirs: await make(other, 'other', 'theirs'),
    };
    expect((await rule(agents.lead, agents.helper, true)).status).toBe(200);
    expect((await rule(agents.lead, agents.shy, false)).status).toBe(200);
    expect((await rule(agents.lead, agents.gone, true)).status).toBe(200);
    expect((await rule(agents.lead, agents.off, true)).status).toBe(200);
    await admin('DELETE', `${ws}/agents/${agents.gone}`);
    await admin('POST', `${ws}/agents/${agents.off}/disable`);
    lead = await sessions.start(acmeId, agents.lead);
    mcp = await connectMcp(platform.gatewayUrl, lead.token);
  }, 180_000);
  afterAll(async () => {
    await mcp?.close();
    await sessions?.close();
    await platform?.stop();
  });

  it('lists the other live agents with the rule state; PUT and DELETE record agent.collaborator_changed only when the rule changes', async () => {
    const listed = await viewer('GET', `${ws}/agents/${agents.lead}/collaborators`);
    expect(listed.status).toBe(200);
    const byName = Object.fromEntries(listed.body.collaborators.map((c: { name: string }) => [c.name, c]));
    expect(Object.keys(byName).sort()).toEqual(['helper', 'loner', 'off', 'shy']);
    expect(byName.helper).toEqual({ agentId: agents.helper, name: 'helper', agentEnabled: true, rule: 'enabled' });
    expect(byName.shy.rule).toBe('disabled');
    expect(byName.loner.rule).toBe('none');
    expect(byName.off).toMatchObject({ agentEnabled: false, rule: 'enabled' });

    const before = (await factsOf(platform, admin, 'acme', 'agent.collaborator_changed')).length;
    expect((await rule(agents.loner, agents.helper, true)).body).toMatchObject({ agentId: agents.helper, rule: 'enabled' });
    expect((await rule(agents.loner, agents.helper, true)).status).toBe(200);
    expect((await admin('DELETE', `${ws}/agents/${agents.loner}/collaborators/${agents.helper}`)).status).toBe(204);
    expect((await admin('DELETE', `${ws}/agents/${agents.loner}/collaborators/${agents.helper}`)).status).toBe(204);
    const facts = (await factsOf(platform, admin, 'acme', 'agent.collaborator_changed')).slice(before);
    expect(facts.map((fact) => [fact.subject.id, fact.payload.enabled])).toEqual([
      [agents.loner, true],
      [agents.loner, null],
    ]);
    expect(facts[0]).toMatchObject({ subject: { type: 'agent', id: agents.loner }, actor: { type: 'member' }, payload: { collaboratorId: agents.helper, collaboratorName: 'helper' } });
  });

  it('refuses a self-edge, unknown or foreign agents, bad bodies, agent tokens, viewers and other workspaces — writing nothing', async () => {
    const factsBefore = await platform.factsRecorded();
    const rows = async () => Number((await sessions.db.query('SELECT count(*) FROM agent_collaborators')).rows[0].count);
    const rulesBefore = await rows();
    const path = `${ws}/agents/${agents.lead}/collaborators`;
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
      ['self-edge', () => admin('PUT', `${path}/${agents.lead}`, { enabled: true }), 400, 'COLLABORATOR_SELF'],
      ['self-edge delete', () => admin('DELETE', `${path}/${agents.lead}`), 400, 'COLLABORATOR_SELF'],
      ['unknown other', () => admin('PUT', `${path}/${randomUUID()}`, { enabled: true }), 404, 'AGENT_NOT_FOUND'],
      ["another workspace's agent", () => admin('PUT', `${path}/${agents.theirs}`, { enabled: true }), 404, 'AGENT_NOT_FOUND'],
      ['a deleted agent', () => admin('PUT', `${path}/${agents.gone}`, { enabled: true }), 404, 'AGENT_NOT_FOUND'],
      ['unknown agent', () => admin('GET', `${ws}/agents/${randomUUID()}/collaborators`), 404, 'AGENT_NOT_FOUND'],
      ['a wrong type', () => admin('PUT', `${path}/${agents.loner}`, { enabled: 'yes' }), 400, 'VALIDATION_FAILED'],
      ['no body', () => admin('PUT', `${path}/${agents.loner}`), 400, 'VALIDATION_FAILED'],
      ['a bad id', () => admin('PUT', `${path}/not-a-uuid`, { enabled: true }), 400, 'VALIDATION_FAILED'],
      ['an agent token', () => lead.api('PUT', `${path}/${agents.loner}`, { enabled: true }), 403, 'FORBIDDEN'],
      ['an agent token deleting', () => lead.api('DELETE', `${path}/${agents.helper}`), 403, 'FORBIDDEN'],
      ['a viewer', () => viewer('PUT', `${path}/${agents.loner}`, { enabled: true }), 403, 'FORBIDDEN'],
      ['a viewer deleting', () => viewer('DELETE', `${path}/${agents.helper}`), 403, 'FORBIDDEN'],
      ['another workspace listing', () => other('GET', path), 403, 'WORKSPACE_FORBIDDEN'],
      ['another workspace writing', () => other('PUT', `${path}/${agents.loner}`, { enabled: true }), 403, 'WORKSPACE_FORBIDDEN'],
      ['another workspace deleting', () => other('DELETE', `${path}/${agents.helper}`), 403, 'WORKSPACE_FORBIDDEN'],
      ['their path, our agent', () => other('GET', `/v1/workspaces/other/agents/${agents.lead}/collaborators`), 404, 'AGENT_NOT_FOUND'],
    ];
    for (const [what, call, status, code] of cases) {
      const response = await call();
      expect({ what, status: response.status, code: response.body?.error?.code }).toEqual({ what, status, code });
    }
    expect(await rows()).toBe(rulesBefore);
    expect(await platform.factsRecorded()).toBe(factsBefore);
  });

  it('the delegation matrix: self and an enabled collaborator start a child run; every other target is a typed refusal with the roster', async () => {
    const refusals: Array<[string, string, string]> = [
      ['a disabled rule', agents.shy, 'collaborator_disabled'],
      ['no rule', 'loner', 'collaborator_not_allowed'],
      ['a deleted agent', agents.gone, 'target_not_found'],
      ["another workspace's agent", agents.theirs, 'target_not_found'],
      ['an unknown name', 'nobody', 'target_not_found'],
      ['a disabled agent with an enabled rule', agents.off, 'target_disabled'],
    ];
    const before = await runCount();
    for (const [what, target, reason] of refusals) {
      const refused = await callTool(mcp, 'delegate_to_agent', { target, objective: 'Review PR 42' });
      expect({ what, isError: refused.isError, code: refused.body.error.code, reason: refused.body.error.details.reason }).toEqual({ what, isError: true, code: 'DELEGATION_REFUSED', reason });
      expect(refused.body.error.details.roster).toEqual([
        { agentId: agents.lead, name: 'lead', self: true },
        { agentId: agents.helper, name: 'helper', self: false },
      ]);
    }
    expect(await runCount()).toBe(before);

    for (const target of [agents.lead, 'helper']) {
      const started = await callTool(mcp, 'delegate_to_agent', { target, objective: 'Review PR 42', context: 'The diff touches auth.' });
      expect(started.isError).toBe(false);
      const expectedAgent = target === 'helper' ? agents.helper : agents.lead;
      expect(started.body).toMatchObject({
        agentId: expectedAgent,
        status: 'queued',
        origin: { type: 'delegation', parentRunId: lead.runId, parentAgentId: agents.lead, objective: 'Review PR 42', context: 'The diff touches auth.' },
        causedBy: { runId: lead.runId, agentId: agents.lead, depth: 1 },
        depth: 1,
      });
      const [envelope] = await mailboxEntries(started.body.sessionId);
      expect(envelope).toMatchObject({ from: { type: 'teammate', agentId: agents.lead, name: 'lead' }, content: 'Objective: Review PR 42\n\nContext:\nThe diff touches auth.' });
    }
    expect(await runCount()).toBe(before + 2);
  });

  it("a person's token cannot delegate; bad input is VALIDATION_FAILED; the depth cap holds", async () => {
    const person = await connectMcp(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'me', role: 'member' })).body.token);
    try {
      expect((await callTool(person, 'delegate_to_agent', { target: 'helper', objective: 'x' })).body.error.code).toBe('FORBIDDEN');
    } finally {
      await person.close();
    }
    const before = await runCount();
    for (const args of [{ target: 'helper' }, { target: 'helper', objective: '' }, { target: 'Not A Name!', objective: 'x' }, { target: 'helper', objective: 'x', extra: 1 }, { target: 'helper', objective: 'x'.repeat(10_001) }]) {
      expect((await callTool(mcp, 'delegate_to_agent', args)).body.error.code).toBe('VALIDATION_FAILED');
    }
    // MAX_CAUSATION_DEPTH is 5 by default: a run at depth 4 cannot start one at depth 5.
    const deep = await sessions.start(acmeId, agents.lead, 4);
    const deepMcp = await connectMcp(platform.gatewayUrl, deep.token);
    try {
      expect((await callTool(deepMcp, 'delegate_to_agent', { target: 'helper', objective: 'x' })).body.error.code).toBe('CAUSATION_DEPTH_EXCEEDED');
    } finally {
      await deepMcp.close();
    }
    expect(await runCount()).toBe(before + 1);
  });

  it("a child's result comes back to the parent's mailbox; when the parent has ended, it is recorded as agent.delegation.returned", async () => {
    const child = (await callTool(mcp, 'delegate_to_agent', { target: 'helper', objective: 'Count the bugs' })).body;
    const outcome = { summary: 'found 3 bugs', turns: 1, toolCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
    await setRunColumns(sessions.db, child.id, { status: 'completed', outcome, ended_at: new Date() });
    const returned = await waitFor(
      async () => (await mailboxEntries(lead.sessionId)).find((entry) => entry.from.type === 'event' && entry.from.subject.id === child.id),
      { what: "the child's result in the parent's mailbox", timeoutMs: 60_000 },
    );
    expect(returned.from).toMatchObject({ type: 'event', kind: 'agent.run.completed', subject: { type: 'run', id: child.id } });
    expect(JSON.parse(returned.content)).toEqual({ delegatedRun: child.id, agentId: agents.helper, status: 'completed', result: 'found 3 bugs' });

    // The parent ends (its loop closes its mailbox); then its second child fails.
    const late = (await callTool(mcp, 'delegate_to_agent', { target: 'helper', objective: 'Too late' })).body;
    await new SessionMailbox(platform.redis.redis, platform.redis.prefix).closeNow(lead.sessionId, undefined);
    await setRunColumns(sessions.db, late.id, { status: 'failed', error: { code: 'MODEL_ERROR', message: 'the model is down' }, reason: 'model_error', ended_at: new Date() });
    const fact = await waitFor(
      async () => (await factsOf(platform, admin, 'acme', 'agent.delegation.returned')).find((f) => f.payload.childRunId === late.id),
      { what: 'the late return recorded', timeoutMs: 60_000 },
    );
    expect(fact).toMatchObject({
      subject: { type: 'run', id: lead.runId },
      causedBy: { runId: late.id, agentId: agents.helper },
      payload: { childAgentId: agents.helper, status: 'failed', result: 'the model is down', delivery: 'parent_ended' },
    });
    const first = (await factsOf(platform, admin, 'acme', 'agent.delegation.returned')).filter((f) => f.payload.childRunId === child.id);
    expect(first).toHaveLength(1);
    expect(first[0].payload.delivery).toBe('delivered');
  }, 120_000);

  it('stopping the parent stops its delegated children (the causal stop follows causedBy)', async () => {
    const parent = await sessions.start(acmeId, agents.lead);
    const parentMcp = await connectMcp(platform.gatewayUrl, parent.token);
    let child: { id: string };
    try {
      child = (await callTool(parentMcp, 'delegate_to_agent', { target: 'helper', objective: 'Long job' })).body;
    } finally {
      await parentMcp.close();
    }
    const stopped = await admin('POST', `${ws}/runs/${parent.runId}/stop`, {});
    expect([200, 202]).toContain(stopped.status);
    expect(stopped.body.stopped).toEqual(expect.arrayContaining([expect.objectContaining({ id: child.id, action: 'cancelled' })]));
    expect((await admin('GET', `${ws}/runs/${child.id}`)).body.status).toBe('cancelled');
  }, 60_000);
});
