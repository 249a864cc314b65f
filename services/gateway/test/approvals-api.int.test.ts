import { Client } from 'pg';
import { ApprovalSchema, ListApprovalsResponseSchema } from '@switchyard/contracts';
import { SqlPool } from '@switchyard/db';
import { createActivationQueue, type ActivationQueue } from '@switchyard/redis';
import { apiClient, insertApproval, insertParkedRun, setRunColumns, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { callTool, connectMcp } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

/**
 * The approvals API (decision 0025) over real HTTP and MCP against the real
 * gateway and event-log processes. No runner parks runs here: a park is
 * written as SQL fixtures (a run `awaiting_approval`, its approval rows); the
 * resume is read back from the run row and the real `activations` queue.
 */
describe('approvals API', () => {
  let platform: TestPlatform;
  let admin: Api;
  let member: Api;
  let viewer: Api;
  let other: Api;
  let pg: Client;
  let sql: SqlPool;
  let queue: ActivationQueue;
  let acmeId: string;
  let otherId: string;
  let agentId: string;
  let otherAgentId: string;
  let memberTokenId: string;
  let memberUserId: string;
  const ws = '/v1/workspaces/acme';
  const spec = (name: string) => ({ name, instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] });

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    const created = (await admin('POST', `${ws}/tokens`, { name: 'ci', role: 'member' })).body;
    member = apiClient(platform.gatewayUrl, created.token);
    memberTokenId = created.id;
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    queue = createActivationQueue(platform.redis.redis, platform.redis.prefix);
    const ids = (await pg.query(`SELECT slug, id::text FROM workspaces`)).rows;
    acmeId = ids.find((r) => r.slug === 'acme').id;
    otherId = ids.find((r) => r.slug === 'other').id;
    memberUserId = (await pg.query(`SELECT user_id::text FROM api_tokens WHERE id = $1`, [memberTokenId])).rows[0].user_id;
    agentId = (await admin('POST', `${ws}/agents`, spec('fixer'))).body.id;
    otherAgentId = (await other('POST', '/v1/workspaces/other/agents', spec('theirs'))).body.id;
  }, 180_000);
  afterAll(async () => {
    await queue?.close();
    await sql?.$disconnect();
    await pg?.end();
    await platform?.stop();
  });

  /** A parked run of the acme agent with `count` pending approvals. */
  async function parked(count = 1, extra: { workspaceId?: string; agentId?: string } = {}) {
    const workspaceId = extra.workspaceId ?? acmeId;
    const agent = extra.agentId ?? agentId;
    const runId = await insertParkedRun(pg, { workspaceId, agentId: agent });
    const approvals: string[] = [];
    for (let i = 0; i < count; i++) approvals.push(await insertApproval(pg, { workspaceId, runId, agentId: agent }));
    return { runId, approvals };
  }
  const runRow = async (id: string) => (await pg.query(`SELECT status::text, reason, stop_requested FROM runs WHERE id = $1`, [id])).rows[0];
  const approvalRow = async (id: string) => (await pg.query(`SELECT status, decided_by, note, decided_at FROM approvals WHERE id = $1`, [id])).rows[0];
  const resumeJobs = async (runId: string) => (await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter((job) => job.id?.startsWith(`${runId}-resume-`));
  const storedFacts = async (subjectId: string) => {
    await platform.factsRecorded();
    return (await pg.query(`SELECT kind, actor, payload, caused_by FROM platform_events WHERE subject_id = $1 ORDER BY seq`, [subjectId])).rows;
  };

  it('lists and reads approvals oldest first, with filters and cursor paging (viewer)', async () => {
    const { runId, approvals } = await parked(3);
    const page1 = await viewer('GET', `${ws}/approvals?runId=${runId}&limit=2`);
    expect(page1.status).toBe(200);
    expect(ListApprovalsResponseSchema.parse(page1.body).approvals.map((a) => a.id)).toEqual(approvals.slice(0, 2));
    const page2 = await viewer('GET', `${ws}/approvals?runId=${runId}&limit=2&after=${page1.body.nextCursor}`);
    expect(page2.body.approvals.map((a: { id: string }) => a.id)).toEqual(approvals.slice(2));
    expect(page2.body.nextCursor).toBeNull();
    const one = await viewer('GET', `${ws}/approvals/${approvals[0]}`);
    expect(ApprovalSchema.parse(one.body)).toMatchObject({ id: approvals[0], workspace: 'acme', runId, agentId, status: 'pending', decidedBy: null, tool: { class: 'write' } });
    const byAgent = await viewer('GET', `${ws}/approvals?agentId=${agentId}&status=pending&limit=200`);
    expect(byAgent.body.approvals.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining(approvals));
  });

  it('approves: first write wins, the fact is recorded with the decision and the run resumes with a job of its own', async () => {
    const { runId, approvals } = await parked(1);
    const [id] = approvals as [string];
    const decided = await member('POST', `${ws}/approvals/${id}/decision`, { decision: 'approve', note: 'go ahead' });
    expect(decided.status).toBe(200);
    expect(ApprovalSchema.parse(decided.body)).toMatchObject({ id, status: 'approved', note: 'go ahead', decidedBy: { type: 'member', userId: memberUserId, tokenId: memberTokenId, name: 'acme admin' } });
    expect(await runRow(runId)).toMatchObject({ status: 'queued' });
    expect((await resumeJobs(runId)).map((job) => job.data)).toEqual([{ schemaVersion: 1, runId, workspaceId: acmeId, agentId }]);

    const again = await admin('POST', `${ws}/approvals/${id}/decision`, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'APPROVAL_ALREADY_DECIDED', details: { id, status: 'approved', note: 'go ahead' } });
    expect(await approvalRow(id)).toMatchObject({ status: 'approved', note: 'go ahead' });

    const facts = await storedFacts(id);
    expect(facts).toEqual([
      expect.objectContaining({ kind: 'approval.decided', actor: { type: 'member', id: memberUserId, name: 'acme admin' }, caused_by: { runId, agentId, depth: 1 }, payload: expect.objectContaining({ status: 'approved' }) }),
    ]);
  });

  it('denies with a note; a run with two approvals resumes only once both are decided', async () => {
    const { runId, approvals } = await parked(2);
    const [first, second] = approvals as [string, string];
    expect((await member('POST', `${ws}/approvals/${first}/decision`, { decision: 'deny', note: 'not today' })).body).toMatchObject({ status: 'denied', note: 'not today' });
    expect(await runRow(runId)).toMatchObject({ status: 'awaiting_approval' });
    expect(await resumeJobs(runId)).toEqual([]);
    expect((await member('POST', `${ws}/approvals/${second}/decision`, { decision: 'approve' })).status).toBe(200);
    expect(await runRow(runId)).toMatchObject({ status: 'queued' });
    expect(await resumeJobs(runId)).toHaveLength(1);
  });

  it('10 concurrent decisions on one approval: one 200, nine 409, one resume', async () => {
    const { runId, approvals } = await parked(1);
    const [id] = approvals as [string];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => member('POST', `${ws}/approvals/${id}/decision`, { decision: i % 2 === 0 ? 'approve' : 'deny', note: `decider ${i}` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const winner = answers.find((a) => a.status === 200)!.body;
    for (const loser of answers.filter((a) => a.status === 409)) expect(loser.body.error.details).toMatchObject({ status: winner.status, note: winner.note });
    expect(await approvalRow(id)).toMatchObject({ status: winner.status, note: winner.note });
    expect(await resumeJobs(runId)).toHaveLength(1);
    expect((await storedFacts(id)).map((f) => f.kind)).toEqual(['approval.decided']);
  });

  it('holds the resume while the kill switch is on: the decision is recorded, the run stays parked', async () => {
    const { runId, approvals } = await parked(1);
    expect((await admin('PUT', `${ws}/settings`, { agentsPaused: true })).status).toBe(200);
    try {
      expect((await member('POST', `${ws}/approvals/${approvals[0]}/decision`, { decision: 'approve' })).status).toBe(200);
      expect(await runRow(runId)).toMatchObject({ status: 'awaiting_approval' });
      expect(await resumeJobs(runId)).toEqual([]);
    } finally {
      await admin('PUT', `${ws}/settings`, { agentsPaused: false });
    }
  });

  it('refuses an agent token on the decision, over REST and MCP, and does not offer it decide_approval', async () => {
    const { approvals } = await parked(1);
    const running = await insertParkedRun(pg, { workspaceId: acmeId, agentId, status: 'running' });
    const { token } = await new SqlAgentTokens(sql).mint({ workspaceId: acmeId, runId: running, agentId, depth: 0, ttlMs: 60_000 });
    const agent = apiClient(platform.gatewayUrl, token);
    expect((await agent('GET', `${ws}/approvals/${approvals[0]}`)).status).toBe(200);
    const rest = await agent('POST', `${ws}/approvals/${approvals[0]}/decision`, { decision: 'approve' });
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe('FORBIDDEN');
    const client = await connectMcp(platform.gatewayUrl, token);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['list_approvals', 'get_approval']));
      expect(names).not.toContain('decide_approval');
      const called = await callTool(client, 'decide_approval', { id: approvals[0], decision: 'approve' });
      expect(called).toMatchObject({ isError: true, body: { error: { code: 'FORBIDDEN' } } });
    } finally {
      await client.close();
    }
    expect(await approvalRow(approvals[0]!)).toMatchObject({ status: 'pending', decided_by: null });
  });

  it('lists, reads and decides through the MCP tools with a person token', async () => {
    const { runId, approvals } = await parked(1);
    const client = await connectMcp(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'mcp', role: 'member' })).body.token);
    try {
      const listed = await callTool(client, 'list_approvals', { runId });
      expect(listed.body.approvals.map((a: { id: string }) => a.id)).toEqual(approvals);
      expect((await callTool(client, 'get_approval', { id: approvals[0] })).body).toMatchObject({ id: approvals[0], status: 'pending' });
      expect((await callTool(client, 'decide_approval', { id: approvals[0], decision: 'deny', note: 'no' })).body).toMatchObject({ status: 'denied', note: 'no' });
      expect(await callTool(client, 'decide_approval', { id: approvals[0], decision: 'approve' })).toMatchObject({ isError: true, body: { error: { code: 'APPROVAL_ALREADY_DECIDED' } } });
      expect(await callTool(client, 'decide_approval', { id: approvals[0], decision: 'yes' })).toMatchObject({ isError: true, body: { error: { code: 'VALIDATION_FAILED' } } });
    } finally {
      await client.close();
    }
    expect(await runRow(runId)).toMatchObject({ status: 'queued' });
  });

  it('closes the approval of a run stopped meanwhile as denied by the platform, refusing the decision', async () => {
    const { runId, approvals } = await parked(1);
    await setRunColumns(pg, runId, { stop_requested: true });
    const decided = await member('POST', `${ws}/approvals/${approvals[0]}/decision`, { decision: 'approve' });
    expect(decided.status).toBe(409);
    expect(decided.body.error.details).toMatchObject({ status: 'denied', decidedBy: { type: 'system', reason: 'run_stopped' } });
    expect(await runRow(runId)).toMatchObject({ status: 'cancelled', reason: 'stopped' });
    expect(await resumeJobs(runId)).toEqual([]);
  });

  describe('refusals, with nothing written', () => {
    let theirs: string;
    let pendingId: string;
    beforeAll(async () => {
      theirs = (await parked(1, { workspaceId: otherId, agentId: otherAgentId })).approvals[0]!;
      pendingId = (await parked(1)).approvals[0]!;
    });
    const snapshot = async () => ({
      rows: (await pg.query(`SELECT string_agg(id::text || status || coalesce(note, ''), ',' ORDER BY id) AS a FROM approvals`)).rows[0].a,
      runs: (await pg.query(`SELECT string_agg(id::text || status::text, ',' ORDER BY id) AS r FROM runs`)).rows[0].r,
      facts: await platform.factsRecorded(),
    });
    const unknown = '0190d0b4-9c1e-7cc2-8a3e-4f2a9d1b6c70';
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
      ['viewer deciding', () => viewer('POST', `${ws}/approvals/${pendingId}/decision`, { decision: 'approve' }), 403, 'FORBIDDEN'],
      ["another workspace's token on this path", () => other('GET', `${ws}/approvals`), 403, 'WORKSPACE_FORBIDDEN'],
      ["another workspace's token deciding here", () => other('POST', `${ws}/approvals/${pendingId}/decision`, { decision: 'approve' }), 403, 'WORKSPACE_FORBIDDEN'],
      ["another workspace's approval by id", () => member('GET', `${ws}/approvals/${theirs}`), 404, 'APPROVAL_NOT_FOUND'],
      ["deciding another workspace's approval", () => member('POST', `${ws}/approvals/${theirs}/decision`, { decision: 'approve' }), 404, 'APPROVAL_NOT_FOUND'],
      ['an unknown approval', () => member('POST', `${ws}/approvals/${unknown}/decision`, { decision: 'approve' }), 404, 'APPROVAL_NOT_FOUND'],
      ['a malformed id', () => member('POST', `${ws}/approvals/42/decision`, { decision: 'approve' }), 400, 'VALIDATION_FAILED'],
      ['a malformed id on read', () => member('GET', `${ws}/approvals/not-an-id`), 400, 'VALIDATION_FAILED'],
      ['an unknown decision', () => member('POST', `${ws}/approvals/${pendingId}/decision`, { decision: 'maybe' }), 400, 'VALIDATION_FAILED'],
      ['no decision', () => member('POST', `${ws}/approvals/${pendingId}/decision`, {}), 400, 'VALIDATION_FAILED'],
      ['a note of the wrong type', () => member('POST', `${ws}/approvals/${pendingId}/decision`, { decision: 'deny', note: 7 }), 400, 'VALIDATION_FAILED'],
      ['a note too long', () => member('POST', `${ws}/approvals/${pendingId}/decision`, { decision: 'deny', note: 'x'.repeat(2001) }), 400, 'VALIDATION_FAILED'],
      ['an unknown field', () => member('POST', `${ws}/approvals/${pendingId}/decision`, { decision: 'deny', by: 'someone' }), 400, 'VALIDATION_FAILED'],
      ['a body that is not an object', () => member('POST', `${ws}/approvals/${pendingId}/decision`, ['approve']), 400, 'VALIDATION_FAILED'],
      ['a bad status filter', () => member('GET', `${ws}/approvals?status=open`), 400, 'VALIDATION_FAILED'],
      ['a bad cursor', () => member('GET', `${ws}/approvals?after=12`), 400, 'VALIDATION_FAILED'],
      ['a bad limit', () => member('GET', `${ws}/approvals?limit=0`), 400, 'VALIDATION_FAILED'],
      ['an unknown query field', () => member('GET', `${ws}/approvals?sort=desc`), 400, 'VALIDATION_FAILED'],
      ['a malformed runId filter', () => member('GET', `${ws}/approvals?runId=abc`), 400, 'VALIDATION_FAILED'],
      ['PUT on a decision', () => member('PUT', `${ws}/approvals/${pendingId}/decision`, { decision: 'approve' }), 405, 'METHOD_NOT_ALLOWED'],
      ['no token', () => apiClient(platform.gatewayUrl, '')('GET', `${ws}/approvals`), 401, 'UNAUTHENTICATED'],
    ];
    it.each(cases)('%s → %i %s', async (_name, call, status, code) => {
      const before = await snapshot();
      const response = await call();
      expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
      expect(await snapshot()).toEqual(before);
    });
    it('gives an empty page for a cursor of another workspace', async () => {
      const page = await member('GET', `${ws}/approvals?after=${theirs}`);
      expect(page.body).toEqual({ approvals: [], nextCursor: null });
    });
  });

  describe('the causal stop', () => {
    it('stops a parked run, the manual run its tool started and the run that one caused: all cancelled, their approvals closed', async () => {
      const top = await parked(1);
      const manual = await insertParkedRun(pg, { workspaceId: acmeId, agentId, status: 'queued', manual: true, causedByRunId: top.runId, depth: 1 });
      const grandchild = await insertParkedRun(pg, { workspaceId: acmeId, agentId, causedByRunId: manual, depth: 2 });
      const grandApproval = await insertApproval(pg, { workspaceId: acmeId, runId: grandchild, agentId });
      const unrelated = await parked(1);
      const stopped = await member('POST', `${ws}/runs/${top.runId}/stop`);
      expect(stopped.status).toBe(200);
      expect(stopped.body).toMatchObject({ id: top.runId, status: 'cancelled', action: 'cancelled' });
      expect(stopped.body.stopped).toEqual([
        { id: top.runId, agentId, status: 'cancelled', action: 'cancelled', approvalsClosed: 1 },
        { id: manual, agentId, status: 'cancelled', action: 'cancelled', approvalsClosed: 0 },
        { id: grandchild, agentId, status: 'cancelled', action: 'cancelled', approvalsClosed: 1 },
      ]);
      for (const id of [top.runId, manual, grandchild]) expect(await runRow(id)).toMatchObject({ status: 'cancelled', reason: 'stopped' });
      for (const id of [top.approvals[0]!, grandApproval]) {
        expect(await approvalRow(id)).toMatchObject({ status: 'denied', decided_by: { type: 'system', reason: 'run_stopped' } });
      }
      expect(await runRow(unrelated.runId)).toMatchObject({ status: 'awaiting_approval' });
      expect((await storedFacts(grandApproval)).map((f) => [f.kind, f.payload.status])).toEqual([['approval.decided', 'denied']]);
      const runFacts = await storedFacts(grandchild);
      expect(runFacts.map((f) => f.kind)).toContain('agent.run.cancelled');
    });

    it('flags a running descendant for its runner (202) and leaves the caused runs alone with cascade false', async () => {
      const top = await insertParkedRun(pg, { workspaceId: acmeId, agentId, status: 'running' });
      const child = await insertParkedRun(pg, { workspaceId: acmeId, agentId, status: 'running', causedByRunId: top, depth: 1 });
      const alone = await member('POST', `${ws}/runs/${top}/stop`, { cascade: false });
      expect(alone.status).toBe(202);
      expect(alone.body.stopped.map((s: { id: string }) => s.id)).toEqual([top]);
      expect(await runRow(child)).toMatchObject({ status: 'running', stop_requested: false });
      const all = await member('POST', `${ws}/runs/${top}/stop`);
      expect(all.status).toBe(202);
      expect(all.body.stopped).toEqual([
        { id: top, agentId, status: 'running', action: 'stop_requested', approvalsClosed: 0 },
        { id: child, agentId, status: 'running', action: 'stop_requested', approvalsClosed: 0 },
      ]);
    });

    it('stops what an ended run caused; with nothing left to stop it is RUN_NOT_ACTIVE', async () => {
      const done = await insertParkedRun(pg, { workspaceId: acmeId, agentId, status: 'completed' });
      const child = await parked(1);
      await setRunColumns(pg, child.runId, { caused_by: { runId: done, agentId, depth: 1 } });
      const stopped = await member('POST', `${ws}/runs/${done}/stop`);
      expect(stopped.status).toBe(200);
      expect(stopped.body).toMatchObject({ id: done, status: 'completed', action: 'none', stopped: [{ id: child.runId, action: 'cancelled', approvalsClosed: 1 }] });
      const again = await member('POST', `${ws}/runs/${done}/stop`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('RUN_NOT_ACTIVE');
    });

    it('refuses a bad stop body with nothing written', async () => {
      const { runId } = await parked(1);
      for (const body of [{ cascade: 'yes' }, { cascade: true, extra: 1 }]) {
        const response = await member('POST', `${ws}/runs/${runId}/stop`, body);
        expect({ status: response.status, code: response.body.error.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      }
      expect(await runRow(runId)).toMatchObject({ status: 'awaiting_approval', stop_requested: false });
    });

    it('stop_run over MCP takes cascade and lists what it stopped', async () => {
      const top = await parked(1);
      const child = await parked(1);
      await setRunColumns(pg, child.runId, { caused_by: { runId: top.runId, agentId, depth: 1 } });
      const client = await connectMcp(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'mcp-stop', role: 'member' })).body.token);
      try {
        const result = await callTool(client, 'stop_run', { id: top.runId });
        expect(result.body).toMatchObject({ action: 'cancelled', run: { id: top.runId, status: 'cancelled' } });
        expect(result.body.stopped.map((s: { id: string }) => s.id)).toEqual([top.runId, child.runId]);
      } finally {
        await client.close();
      }
      await waitFor(async () => (await runRow(child.runId)).status === 'cancelled');
    });
  });
});
