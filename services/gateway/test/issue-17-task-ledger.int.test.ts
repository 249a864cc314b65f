import { randomUUID } from 'node:crypto';
import { GROUPS, STREAMS } from '@switchyard/contracts';
import { groupCaughtUp, toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { callTool, connectMcp } from './mcp-client';
import { agentSpec, AgentSessions, factsOf, type Api } from './team-helpers';

/**
 * Issue 17, item 6: the workspace task ledger over REST and the platform
 * tools, against a real gateway, event-log and matcher as processes. Claims
 * race to one winner, ending the last blocker announces the task, facts are
 * recorded with their changes and attributed, tenancy and roles hold, and
 * bad input writes nothing.
 */
describe('issue 17: the task ledger', () => {
  let platform: TestPlatform;
  let sessions: AgentSessions;
  let admin: Api;
  let viewer: Api;
  let other: Api;
  let acmeId: string;
  const ws = '/v1/workspaces/acme';

  const create = async (api: Api, body: Record<string, unknown>) => {
    const response = await api('POST', `${ws}/tasks`, body);
    expect(response.status).toBe(201);
    return response.body;
  };
  const taskCount = async () => Number((await sessions.db.query('SELECT count(*) FROM tasks')).rows[0].count);

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    sessions = new AgentSessions(platform);
    await sessions.connect();
    acmeId = await sessions.workspaceId('acme');
  }, 180_000);
  afterAll(async () => {
    await sessions?.close();
    await platform?.stop();
  });

  it('creates, lists, edits, claims, completes, cancels, reopens and deletes, each change with its fact', async () => {
    const task = await create(admin, { subject: 'Write the release notes', description: 'for 1.2' });
    expect(task).toMatchObject({ workspace: 'acme', status: 'pending', owner: null, blockedBy: [], openBlockers: [], createdBy: { type: 'member' }, causedBy: null });
    expect((await viewer('GET', `${ws}/tasks/${task.id}`)).body).toEqual(task);

    const edited = await admin('PATCH', `${ws}/tasks/${task.id}`, { subject: 'Write the 1.2 release notes' });
    expect(edited.body.subject).toBe('Write the 1.2 release notes');
    const claimed = await admin('POST', `${ws}/tasks/${task.id}/claim`);
    expect(claimed.body).toMatchObject({ status: 'in_progress', owner: { type: 'member', id: task.createdBy.id } });
    // The owner claiming again changes nothing (and records nothing).
    expect((await admin('POST', `${ws}/tasks/${task.id}/claim`)).body).toEqual(claimed.body);
    const completed = await admin('POST', `${ws}/tasks/${task.id}/complete`);
    expect(completed.body).toMatchObject({ status: 'completed', endedAt: expect.any(String) });
    expect((await admin('POST', `${ws}/tasks/${task.id}/complete`)).body.error.code).toBe('TASK_NOT_OPEN');
    const reopened = await admin('POST', `${ws}/tasks/${task.id}/reopen`);
    expect(reopened.body).toMatchObject({ status: 'pending', owner: null, claimedAt: null, endedAt: null });
    expect((await admin('POST', `${ws}/tasks/${task.id}/cancel`)).body.status).toBe('cancelled');

    const listed = await viewer('GET', `${ws}/tasks?status=cancelled`);
    expect(listed.body.tasks.map((t: { id: string }) => t.id)).toContain(task.id);
    expect((await admin('DELETE', `${ws}/tasks/${task.id}`)).status).toBe(204);
    expect((await admin('GET', `${ws}/tasks/${task.id}`)).body.error.code).toBe('TASK_NOT_FOUND');

    const facts = (await factsOf(platform, admin, 'acme', 'task.*')).filter((fact) => fact.subject.id === task.id);
    expect(facts.map((fact) => fact.kind)).toEqual(['task.created', 'task.updated', 'task.claimed', 'task.completed', 'task.reopened', 'task.cancelled', 'task.deleted']);
    for (const fact of facts) expect(fact).toMatchObject({ subject: { type: 'task', id: task.id }, actor: { type: 'member', id: task.createdBy.id } });
    expect(facts[3].payload).toMatchObject({ status: 'completed' });
  });

  it('20 concurrent claims of one task: exactly one owner, 19 × 409 TASK_ALREADY_CLAIMED naming it', async () => {
    const agents = await Promise.all(Array.from({ length: 20 }, (_, i) => admin('POST', `${ws}/agents`, agentSpec(`claimer-${i}`))));
    const claimers = [];
    for (const agent of agents) claimers.push(await sessions.start(acmeId, agent.body.id));
    const task = await create(admin, { subject: 'Only one of you' });
    const answers = await Promise.all(claimers.map((claimer) => claimer.api('POST', `${ws}/tasks/${task.id}/claim`)));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    const owner = winners[0]!.body.owner;
    expect(claimers.map((c) => c.agentId)).toContain(owner.id);
    const losers = answers.filter((answer) => answer.status === 409);
    expect(losers).toHaveLength(19);
    for (const loser of losers) expect(loser.body.error).toMatchObject({ code: 'TASK_ALREADY_CLAIMED', details: { id: task.id, owner } });
    expect((await admin('GET', `${ws}/tasks/${task.id}`)).body.owner).toEqual(owner);
    const claims = (await factsOf(platform, admin, 'acme', 'task.claimed')).filter((fact) => fact.subject.id === task.id);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ actor: { type: 'agent', id: owner.id }, causedBy: { agentId: owner.id, depth: 1 } });
  }, 120_000);

  it('completing the last blocker announces the task unblocked, once, even when the blockers end at the same time', async () => {
    const first = await create(admin, { subject: 'blocker 1' });
    const second = await create(admin, { subject: 'blocker 2' });
    const waiting = await create(admin, { subject: 'after both', blockedBy: [first.id, second.id] });
    expect(waiting.openBlockers).toEqual([first.id, second.id].sort());
    const blocked = await admin('POST', `${ws}/tasks/${waiting.id}/claim`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toMatchObject({ code: 'TASK_BLOCKED', details: { openBlockers: [first.id, second.id].sort() } });
    expect((await viewer('GET', `${ws}/tasks?blocked=true`)).body.tasks.map((t: { id: string }) => t.id)).toContain(waiting.id);

    await admin('POST', `${ws}/tasks/${first.id}/complete`);
    const unblockedSoFar = (await factsOf(platform, admin, 'acme', 'task.unblocked')).filter((fact) => fact.subject.id === waiting.id);
    expect(unblockedSoFar).toEqual([]);
    await admin('POST', `${ws}/tasks/${second.id}/complete`);
    const announced = (await factsOf(platform, admin, 'acme', 'task.unblocked')).filter((fact) => fact.subject.id === waiting.id);
    expect(announced).toHaveLength(1);
    expect(announced[0].payload).toMatchObject({ id: waiting.id, status: 'pending', openBlockers: [] });

    // Ten tasks each waiting on two blockers that complete concurrently: each announced exactly once.
    const pairs = await Promise.all(Array.from({ length: 10 }, async () => [await create(admin, { subject: 'a' }), await create(admin, { subject: 'b' })]));
    const dependents = await Promise.all(pairs.map(([a, b]) => create(admin, { subject: 'after a and b', blockedBy: [a.id, b.id] })));
    const ends = await Promise.all(pairs.flat().map((blocker) => admin('POST', `${ws}/tasks/${blocker.id}/complete`)));
    expect(ends.every((end) => end.status === 200)).toBe(true);
    const facts = await factsOf(platform, admin, 'acme', 'task.unblocked');
    for (const dependent of dependents) expect(facts.filter((fact) => fact.subject.id === dependent.id)).toHaveLength(1);
    expect((await admin('POST', `${ws}/tasks/${waiting.id}/claim`)).status).toBe(200);
  }, 120_000);

  it("the creator never wakes on its own task.created; another agent watching it does", async () => {
    const creator = (await admin('POST', `${ws}/agents`, agentSpec('planner', [{ kind: 'task.created' }]))).body;
    const watcher = (await admin('POST', `${ws}/agents`, agentSpec('worker', [{ kind: 'task.created' }]))).body;
    const run = await sessions.start(acmeId, creator.id);
    const mcp = await connectMcp(platform.gatewayUrl, run.token);
    const created = await callTool(mcp, 'create_task', { subject: 'Triage the flaky test' });
    await mcp.close();
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({ createdBy: { type: 'agent', id: creator.id }, causedBy: { runId: run.runId, agentId: creator.id, depth: 1 } });
    const [fact] = (await factsOf(platform, admin, 'acme', 'task.created')).filter((f) => f.subject.id === created.body.id);
    const runsFor = async (agentId: string) =>
      (await sessions.db.query(`SELECT id FROM runs WHERE agent_id = $1 AND event_id = $2`, [agentId, fact.id])).rows;
    await waitFor(async () => (await runsFor(watcher.id)).length === 1, { what: 'the watcher woken by task.created', timeoutMs: 60_000 });
    expect(await runsFor(creator.id)).toEqual([]);
  }, 120_000);

  it('the task tools: an agent lists, gets, edits, claims and completes over MCP', async () => {
    const agent = (await admin('POST', `${ws}/agents`, agentSpec('tool-user'))).body;
    const run = await sessions.start(acmeId, agent.id);
    const mcp = await connectMcp(platform.gatewayUrl, run.token);
    try {
      const tools = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['create_task', 'list_tasks', 'get_task', 'update_task', 'claim_task', 'complete_task', 'delegate_to_agent']));
      const task = (await callTool(mcp, 'create_task', { subject: 'via mcp' })).body;
      expect((await callTool(mcp, 'update_task', { id: task.id, description: 'more' })).body.description).toBe('more');
      expect((await callTool(mcp, 'get_task', { id: task.id })).body.id).toBe(task.id);
      expect((await callTool(mcp, 'claim_task', { id: task.id })).body.owner).toEqual({ type: 'agent', id: agent.id });
      expect((await callTool(mcp, 'complete_task', { id: task.id })).body.status).toBe('completed');
      const listed = await callTool(mcp, 'list_tasks', { ownerType: 'agent', ownerId: agent.id, status: 'completed' });
      expect(listed.body.tasks.map((t: { id: string }) => t.id)).toEqual([task.id]);
      const bad = await callTool(mcp, 'update_task', { id: task.id });
      expect(bad).toMatchObject({ isError: true, body: { error: { code: 'VALIDATION_FAILED' } } });
      const missing = await callTool(mcp, 'claim_task', { id: randomUUID() });
      expect(missing).toMatchObject({ isError: true, body: { error: { code: 'TASK_NOT_FOUND' } } });
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it('blockedBy: unknown, foreign, self, cyclic, duplicated or too many ids are 400 with a stable code, and nothing is written', async () => {
    const theirs = (await other('POST', '/v1/workspaces/other/tasks', { subject: 'theirs' })).body;
    const a = await create(admin, { subject: 'a' });
    const b = await create(admin, { subject: 'b', blockedBy: [a.id] });
    const before = await taskCount();
    // The agents of earlier tests watch task.created: once a and b are on `facts` and the matcher has read them, their runs' facts are counted too.
    await platform.factsRecorded();
    await waitFor(() => groupCaughtUp(platform.redis.redis, toKey(platform.redis.prefix, STREAMS.facts), GROUPS.matcher), { what: 'the matcher caught up' });
    const factsBefore = await platform.factsRecorded();
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, string, string?]> = [
      ['unknown blocker', () => admin('POST', `${ws}/tasks`, { subject: 'x', blockedBy: [randomUUID()] }), 'TASK_BLOCKER_INVALID', 'not_found'],
      ["another workspace's task", () => admin('POST', `${ws}/tasks`, { subject: 'x', blockedBy: [theirs.id] }), 'TASK_BLOCKER_INVALID', 'not_found'],
      ['itself', () => admin('PATCH', `${ws}/tasks/${a.id}`, { blockedBy: [a.id] }), 'TASK_BLOCKER_INVALID', 'self'],
      ['a cycle', () => admin('PATCH', `${ws}/tasks/${a.id}`, { blockedBy: [b.id] }), 'TASK_BLOCKER_INVALID', 'cycle'],
      ['twice the same', () => admin('POST', `${ws}/tasks`, { subject: 'x', blockedBy: [a.id, a.id] }), 'VALIDATION_FAILED'],
      ['too many', () => admin('POST', `${ws}/tasks`, { subject: 'x', blockedBy: Array.from({ length: 21 }, () => randomUUID()) }), 'VALIDATION_FAILED'],
      ['no subject', () => admin('POST', `${ws}/tasks`, { description: 'x' }), 'VALIDATION_FAILED'],
      ['a blank subject', () => admin('POST', `${ws}/tasks`, { subject: '   ' }), 'VALIDATION_FAILED'],
      ['a wrong type', () => admin('POST', `${ws}/tasks`, { subject: 42 }), 'VALIDATION_FAILED'],
      ['an unknown field', () => admin('POST', `${ws}/tasks`, { subject: 'x', owner: { type: 'agent', id: 'me' } }), 'VALIDATION_FAILED'],
      ['an empty patch', () => admin('PATCH', `${ws}/tasks/${a.id}`, {}), 'VALIDATION_FAILED'],
      ['a bad id', () => admin('POST', `${ws}/tasks/not-a-uuid/claim`), 'VALIDATION_FAILED'],
      ['a bad filter', () => admin('GET', `${ws}/tasks?status=done`), 'VALIDATION_FAILED'],
    ];
    for (const [what, call, code, reason] of cases) {
      const response = await call();
      expect({ what, status: response.status, code: response.body.error?.code }).toEqual({ what, status: 400, code });
      if (reason) expect(response.body.error.details.reason).toBe(reason);
    }
    expect(await taskCount()).toBe(before);
    expect(await platform.factsRecorded()).toBe(factsBefore);
  });

  it("another workspace's token, a viewer and a stranger's task: refused on every route", async () => {
    const task = await create(admin, { subject: 'ours' });
    const theirs = (await other('POST', '/v1/workspaces/other/tasks', { subject: 'theirs' })).body;
    const routes: Array<[string, string, unknown?]> = [
      ['POST', `${ws}/tasks`, { subject: 'x' }],
      ['GET', `${ws}/tasks`],
      ['GET', `${ws}/tasks/${task.id}`],
      ['PATCH', `${ws}/tasks/${task.id}`, { subject: 'y' }],
      ['POST', `${ws}/tasks/${task.id}/claim`],
      ['POST', `${ws}/tasks/${task.id}/complete`],
      ['POST', `${ws}/tasks/${task.id}/cancel`],
      ['POST', `${ws}/tasks/${task.id}/reopen`],
      ['DELETE', `${ws}/tasks/${task.id}`],
    ];
    for (const [method, path, body] of routes) {
      const response = await other(method, path, body);
      expect({ method, path, status: response.status, code: response.body.error.code }).toEqual({ method, path, status: 403, code: 'WORKSPACE_FORBIDDEN' });
      if (method !== 'GET') {
        const refused = await viewer(method, path, body);
        expect({ method, path, status: refused.status, code: refused.body.error.code }).toEqual({ method, path, status: 403, code: 'FORBIDDEN' });
      }
    }
    // Their task's id under our workspace is simply not found.
    for (const action of ['claim', 'complete', 'cancel']) expect((await admin('POST', `${ws}/tasks/${theirs.id}/${action}`)).status).toBe(404);
    expect((await admin('GET', `${ws}/tasks/${theirs.id}`)).status).toBe(404);
    expect((await other('GET', `/v1/workspaces/other/tasks/${theirs.id}`)).body.status).toBe('pending');
    // An agent token of another workspace reaches only its own tasks through the tools.
    const otherId = await sessions.workspaceId('other');
    const stranger = (await other('POST', '/v1/workspaces/other/agents', agentSpec('stranger'))).body;
    const run = await sessions.start(otherId, stranger.id);
    const mcp = await connectMcp(platform.gatewayUrl, run.token);
    try {
      for (const tool of ['get_task', 'claim_task', 'complete_task']) {
        expect(await callTool(mcp, tool, { id: task.id })).toMatchObject({ isError: true, body: { error: { code: 'TASK_NOT_FOUND' } } });
      }
      expect(await callTool(mcp, 'update_task', { id: task.id, subject: 'mine now' })).toMatchObject({ isError: true, body: { error: { code: 'TASK_NOT_FOUND' } } });
      const visible = (await callTool(mcp, 'list_tasks', {})).body.tasks.map((t: { id: string }) => t.id);
      expect(visible).toContain(theirs.id);
      expect(visible).not.toContain(task.id);
    } finally {
      await mcp.close();
    }
    expect((await admin('GET', `${ws}/tasks/${task.id}`)).body).toMatchObject({ subject: 'ours', status: 'pending' });
  }, 60_000);

  it("delete is the creator's or an admin's; cancel and edit the creator's, the owner's or an admin's", async () => {
    const a = (await admin('POST', `${ws}/agents`, agentSpec('author'))).body;
    const b = (await admin('POST', `${ws}/agents`, agentSpec('bystander'))).body;
    const author = await sessions.start(acmeId, a.id);
    const bystander = await sessions.start(acmeId, b.id);
    const task = (await author.api('POST', `${ws}/tasks`, { subject: 'mine' })).body;
    for (const [method, path, body] of [
      ['DELETE', `${ws}/tasks/${task.id}`],
      ['POST', `${ws}/tasks/${task.id}/cancel`],
      ['PATCH', `${ws}/tasks/${task.id}`, { subject: 'theirs' }],
    ] as Array<[string, string, unknown?]>) {
      const refused = await bystander.api(method, path, body);
      expect({ method, status: refused.status, code: refused.body.error.code }).toEqual({ method, status: 403, code: 'FORBIDDEN' });
    }
    expect((await author.api('DELETE', `${ws}/tasks/${task.id}`)).status).toBe(204);
    const another = (await author.api('POST', `${ws}/tasks`, { subject: 'for the admin' })).body;
    expect((await admin('DELETE', `${ws}/tasks/${another.id}`)).status).toBe(204);
  });
});
