import { Client } from 'pg';
import { apiClient, startTestMcpServer, startTestPlatform, waitFor, type TestMcpHttpServer, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 15 item 10, the causal stop, end to end (decision 0028): the runs
 * are caused by the agents' own tool calls, not written as fixtures. A
 * parent run's `start_run` call starts a manual run of a child agent; that
 * run's `emit_event` call records a fact the matcher turns into a run of a
 * grandchild agent. Each of the three then asks about a guarded external
 * tool and parks. Stopping the parent with cascade cancels all three and
 * closes their pending approvals `denied` by the platform; the MCP server
 * never gets the guarded call, and a parked run the parent did not cause is
 * left alone. Real gateway, event-log, matcher and runner processes,
 * scripted models, the real MCP test server counting calls.
 */
jest.setTimeout(180_000);

describe('issue 15: the causal stop of runs caused by tool calls', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let pg: Client;
  let admin: Api;
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({ matcher: true, env: { RUNNER_MCP_ALLOW_PRIVATE: 'true', CLAIM_IDLE_MS: '1000' } });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await mcp?.close();
  });

  /** An agent in mode `default` whose script ends by asking about `web.delete_everything` (guarded): its runs park there. */
  const agent = async (name: string, trigger: string, firstSteps: unknown[], platformTools: string[]) => {
    const response = await admin('POST', `${ws}/agents`, {
      name,
      instructions: 'Do your part, then clean up.',
      model: { provider: 'scripted', name: 'script' },
      script: [...firstSteps, { tool: 'web.delete_everything', arguments: {} }, { say: 'done' }],
      triggers: [{ kind: trigger }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }], platform: platformTools },
      // The platform write that causes the next run runs without asking; the guarded call still asks.
      rules: { allow: platformTools.map((tool) => `platform.${tool}`) },
      permissionMode: 'default',
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const runsOf = async (agentId: string) =>
    (await pg.query(`SELECT id::text, status::text, reason, caused_by, origin FROM runs WHERE agent_id = $1 ORDER BY queued_at, id`, [agentId])).rows;
  /** The one run of the agent, once it is parked with one pending approval. */
  const parkedRunOf = (agentId: string) =>
    waitFor(
      async () => {
        const [run] = await runsOf(agentId);
        if (!run) return undefined;
        if (run.status !== 'awaiting_approval' && run.status !== 'queued' && run.status !== 'running') throw new Error(`run ${run.id} ended ${run.status} (${run.reason}) before parking`);
        const pending = (await pg.query(`SELECT id::text FROM approvals WHERE run_id = $1 AND status = 'pending'`, [run.id])).rows;
        return run.status === 'awaiting_approval' && pending.length === 1 ? { ...run, approvalId: pending[0].id as string } : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 50, what: `a parked run of agent ${agentId}` },
    );

  it('stops the parent, the manual run its start_run began and the run that one’s fact caused: all cancelled, their approvals closed', async () => {
    const grandchild = await agent('grandchild', 'cascade.grand', [], []);
    const child = await agent('child', 'never.happens', [{ tool: 'platform.emit_event', arguments: { kind: 'cascade.grand', subject: { type: 'job', id: '{{input}}' } } }], ['emit_event']);
    const parent = await agent('parent', 'never.happens', [{ tool: 'platform.start_run', arguments: { agentId: child, input: 'job-7' } }], ['start_run']);
    const unrelatedAgent = await agent('bystander', 'never.happens', [], []);

    expect((await admin('POST', `${ws}/agents/${parent}/runs`, { input: 'begin' })).status).toBe(201);
    expect((await admin('POST', `${ws}/agents/${unrelatedAgent}/runs`, { input: 'elsewhere' })).status).toBe(201);
    const top = await parkedRunOf(parent);
    const manual = await parkedRunOf(child);
    const caused = await parkedRunOf(grandchild);
    const bystander = await parkedRunOf(unrelatedAgent);

    // The chain is the agents' own doing: a manual run started by the parent's tool call, a fact run caused by the child.
    expect(manual.origin).toMatchObject({ type: 'manual', input: 'job-7' });
    expect(manual.caused_by).toMatchObject({ runId: top.id, agentId: parent, depth: 1 });
    expect(caused.origin).toMatchObject({ type: 'trigger' });
    expect(caused.caused_by).toMatchObject({ runId: manual.id, agentId: child });
    expect(mcp.calls.filter((call) => call.name === 'delete_everything')).toHaveLength(0);

    const stopped = await admin('POST', `${ws}/runs/${top.id}/stop`, {});
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id: top.id, status: 'cancelled', action: 'cancelled' });
    expect(stopped.body.stopped).toEqual([
      { id: top.id, agentId: parent, status: 'cancelled', action: 'cancelled', approvalsClosed: 1 },
      { id: manual.id, agentId: child, status: 'cancelled', action: 'cancelled', approvalsClosed: 1 },
      { id: caused.id, agentId: grandchild, status: 'cancelled', action: 'cancelled', approvalsClosed: 1 },
    ]);
    const rows = (await pg.query(`SELECT id::text, status::text, reason FROM runs WHERE id = ANY($1)`, [[top.id, manual.id, caused.id, bystander.id]])).rows;
    const statusOf = (id: string) => rows.find((row) => row.id === id);
    for (const run of [top, manual, caused]) expect(statusOf(run.id)).toMatchObject({ status: 'cancelled', reason: 'stopped' });
    expect(statusOf(bystander.id)).toMatchObject({ status: 'awaiting_approval' });

    const approvals = (await pg.query(`SELECT id::text, status, decided_by FROM approvals WHERE id = ANY($1)`, [[top.approvalId, manual.approvalId, caused.approvalId, bystander.approvalId]])).rows;
    for (const run of [top, manual, caused]) {
      expect(approvals.find((row) => row.id === run.approvalId)).toMatchObject({ status: 'denied', decided_by: { type: 'system', reason: 'run_stopped' } });
    }
    expect(approvals.find((row) => row.id === bystander.approvalId)).toMatchObject({ status: 'pending' });

    // A closed approval cannot be approved any more, and nothing resumes: the guarded call is never made.
    const late = await admin('POST', `${ws}/approvals/${caused.approvalId}/decision`, { decision: 'approve' });
    expect({ status: late.status, code: late.body.error?.code }).toEqual({ status: 409, code: 'APPROVAL_ALREADY_DECIDED' });
    await platform.factsRecorded();
    const decided = (await pg.query(`SELECT subject_id, payload FROM platform_events WHERE kind = 'approval.decided' AND subject_id = ANY($1)`, [[top.approvalId, manual.approvalId, caused.approvalId]])).rows;
    expect(decided.map((fact) => fact.payload.decidedBy)).toEqual([0, 1, 2].map(() => ({ type: 'system', reason: 'run_stopped' })));
    expect(mcp.calls.filter((call) => call.name === 'delete_everything')).toHaveLength(0);
  });
});
