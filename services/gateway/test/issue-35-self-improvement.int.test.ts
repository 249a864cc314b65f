import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { SqlPool } from '@switchyard/db';
import { apiClient, insertApproval, insertParkedRun, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { callTool, connectMcp } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 35 §5, governed self-improvement (gateway, event-log and runner
 * processes; a scripted model). An agent its target's owner names in
 * `selfImprovement.managers` evaluates a draft of the target (`run_eval`)
 * and proposes it (`save_agent`): the call parks — in bypass mode, under an
 * allow rule — and the approval carries the eval of that draft; approving
 * saves exactly one version. An agent the target does not name is refused
 * with SELF_IMPROVEMENT_NOT_ALLOWED, also after a person approved its save.
 * At the gateway, only an approved, unused approval of the calling run with
 * these very arguments saves: a replay, a call nobody approved, or anything a
 * tool returned, saves nothing.
 */
jest.setTimeout(600_000);

describe('issue 35: governed self-improvement', () => {
  let platform: TestPlatform;
  let pg: Client;
  let admin: Api;
  let acmeId: string;
  let targetId: string;
  let improverId: string;
  let rogueId: string;
  let suiteId: string;

  const ws = '/v1/workspaces/acme';
  const scripted = (name: string, script: unknown[], extra: Record<string, unknown> = {}) => ({
    name,
    instructions: `You are ${name}.`,
    model: { provider: 'scripted', name: 'script' },
    script,
    triggers: [{ kind: 'never.happens' }],
    enabled: false,
    ...extra,
  });
  /** The draft the improver proposes: the target, saying something else. */
  const draftOf = (managers: string[], say = 'triaged, better') => scripted('triage', [{ say }], { selfImprovement: { allow: true, managers } });
  const versionsOf = async (id: string) => Number((await pg.query(`SELECT count(*)::int AS n FROM agent_versions WHERE agent_id = $1`, [id])).rows[0].n);
  const toolResults = async (runId: string, tool: string) => {
    const entries = (await admin('GET', `${ws}/runs/${runId}/transcript?limit=500`)).body.entries as any[];
    return entries.filter((e) => e.type === 'tool' && e.content?.name === tool).map((e) => e.content);
  };
  const pendingApprovalOf = async (runId: string) => {
    let approval: any;
    await waitFor(
      async () => {
        approval = (await admin('GET', `${ws}/approvals?runId=${runId}&status=pending`)).body.approvals?.[0];
        return approval !== undefined;
      },
      { what: `a pending approval of run ${runId}`, timeoutMs: 120_000 },
    );
    return approval;
  };
  const runEnded = async (runId: string) => {
    let run: any;
    await waitFor(
      async () => {
        run = (await admin('GET', `${ws}/runs/${runId}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(run.status);
      },
      { what: `run ${runId} ended`, timeoutMs: 120_000 },
    );
    return run;
  };

  beforeAll(async () => {
    platform = await startTestPlatform();
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    const suite = await admin('POST', `${ws}/eval-suites`, {
      name: 'triage says so',
      cases: [{ fact: { kind: 'ticket.recorded', subject: { type: 'ticket', id: 'T-1' } }, expect: { status: 'completed', summaryIncludes: 'triaged' } }],
    });
    suiteId = suite.body.id;
    targetId = (await admin('POST', `${ws}/agents`, scripted('triage', [{ say: 'triaged' }]))).body.id;
    const tools = { platform: ['run_eval', 'get_eval', 'save_agent', 'try_agent'] };
    // Bypass mode and an allow rule for every platform tool: save_agent asks all the same.
    const improving = (name: string, managers: string[]) =>
      scripted(
        name,
        [
          { tool: 'platform.run_eval', arguments: { agentId: targetId, suite: suiteId, draft: draftOf(managers, `triaged, by ${name}`), trials: 2, budgetUsd: 10 } },
          { tool: 'platform.save_agent', arguments: { agentId: targetId, spec: draftOf(managers, `triaged, by ${name}`) } },
          { say: 'proposed' },
        ],
        { tools, permissionMode: 'bypass', rules: { allow: ['platform.*'] }, enabled: true },
      );
    improverId = (await admin('POST', `${ws}/agents`, improving('improver', []))).body.id;
    rogueId = (await admin('POST', `${ws}/agents`, improving('rogue', []))).body.id;
    // The owner lets the improver (only) improve the target; the improver proposes a draft naming it too.
    expect((await admin('PUT', `${ws}/agents/${targetId}`, draftOf([improverId]))).body.version).toBe(2);
    expect((await admin('PUT', `${ws}/agents/${targetId}`, scripted('triage', [{ say: 'triaged' }], { selfImprovement: { allow: true, managers: [improverId] } }))).body.version).toBe(3);
    expect((await admin('PUT', `${ws}/agents/${improverId}`, improving('improver', [improverId]))).status).toBe(200);
    expect((await admin('PUT', `${ws}/agents/${rogueId}`, improving('rogue', [improverId]))).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it("an agent's save_agent parks with the eval of its draft attached; approving saves exactly one version", async () => {
    const before = await versionsOf(targetId);
    const started = await admin('POST', `${ws}/agents/${improverId}/runs`, { input: 'improve triage' });
    expect(started.status).toBe(201);
    const run = started.body;
    const approval = await pendingApprovalOf(run.id);
    expect(approval.tool).toMatchObject({ server: 'platform', name: 'platform.save_agent', class: 'guarded' });
    expect((await admin('GET', `${ws}/runs/${run.id}`)).body.status).toBe('awaiting_approval');
    // The eval the agent started (a tool call that ran: bypass mode) completes; the approval then shows its diff.
    const [evaluated] = await toolResults(run.id, 'platform.run_eval');
    expect(JSON.stringify(evaluated)).not.toContain('"code"');
    let detail: any;
    await waitFor(
      async () => {
        detail = (await admin('GET', `${ws}/approvals/${approval.id}`)).body;
        return detail.proposalEval?.evalId != null;
      },
      { what: 'the proposal eval completed', timeoutMs: 300_000, intervalMs: 500 },
    );
    expect(detail.proposalEval).toMatchObject({ passed: true, failingCases: [], diff: { verdict: 'no detectable difference' } });
    const evalRun = (await admin('GET', `${ws}/evals/${detail.proposalEval.evalId}`)).body;
    expect(evalRun.targets).toEqual([{ version: 3 }, { version: null, specHash: expect.stringMatching(/^sha256:/) }]);
    expect(await versionsOf(targetId)).toBe(before);

    const decided = await admin('POST', `${ws}/approvals/${approval.id}/decision`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    expect((await runEnded(run.id)).status).toBe('completed');
    expect(await versionsOf(targetId)).toBe(before + 1);
    const [saved] = await toolResults(run.id, 'platform.save_agent');
    expect(JSON.stringify(saved)).toContain(approval.id);
    expect((await admin('GET', `${ws}/agents/${targetId}`)).body.spec.script).toEqual([{ say: 'triaged, by improver' }]);
    // A second decision is refused; nothing more is saved.
    expect((await admin('POST', `${ws}/approvals/${approval.id}/decision`, { decision: 'approve' })).body.error.code).toBe('APPROVAL_ALREADY_DECIDED');
    expect(await versionsOf(targetId)).toBe(before + 1);
    expect((await pg.query(`SELECT used_at FROM approvals WHERE id = $1`, [approval.id])).rows[0].used_at).not.toBeNull();
  });

  it('an agent the owner does not allow is refused SELF_IMPROVEMENT_NOT_ALLOWED, even once a person approved its save', async () => {
    const before = await versionsOf(targetId);
    const evalsBefore = (await admin('GET', `${ws}/agents/${targetId}/evals`)).body.evals.length;
    const started = await admin('POST', `${ws}/agents/${rogueId}/runs`, { input: 'improve triage' });
    expect(started.status).toBe(201);
    const run = started.body;
    const approval = await pendingApprovalOf(run.id);
    expect((await admin('GET', `${ws}/approvals/${approval.id}`)).body.proposalEval).toMatchObject({ evalId: null, note: expect.stringContaining('no completed eval') });
    expect((await admin('POST', `${ws}/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    expect((await runEnded(run.id)).status).toBe('completed');
    const [evaluated] = await toolResults(run.id, 'platform.run_eval');
    const [saved] = await toolResults(run.id, 'platform.save_agent');
    expect(JSON.stringify(evaluated)).toContain('SELF_IMPROVEMENT_NOT_ALLOWED');
    expect(JSON.stringify(saved)).toContain('SELF_IMPROVEMENT_NOT_ALLOWED');
    expect(await versionsOf(targetId)).toBe(before);
    expect((await admin('GET', `${ws}/agents/${targetId}/evals`)).body.evals).toHaveLength(evalsBefore);
  });

  it('at the gateway, only an approved, unused approval of the calling run with these arguments saves: once', async () => {
    // A running run of the improver and its agent token (minted by the runner's adapter).
    const runId = await insertParkedRun(pg, { workspaceId: acmeId, agentId: improverId, status: 'running', manual: true });
    const sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
    const { token } = await new SqlAgentTokens(sql).mint({ workspaceId: acmeId, runId, agentId: improverId, depth: 0, ttlMs: 120_000 });
    const client = await connectMcp(platform.gatewayUrl, token);
    try {
      const args = { agentId: targetId, spec: scripted('triage', [{ say: 'triaged v-direct' }], { selfImprovement: { allow: true, managers: [improverId] } }) };
      const before = await versionsOf(targetId);
      // Nobody approved it: refused (a tool's result, or anything the model says, is no approval).
      expect((await callTool(client, 'save_agent', args)).body.error.code).toBe('SAVE_AGENT_NOT_APPROVED');
      const person = { type: 'member', userId: randomUUID() };
      const tool = { server: 'platform', name: 'platform.save_agent', class: 'guarded', why: 'test' };
      const approval = (status: string, preview: string, decidedBy: Record<string, unknown> | null = status === 'pending' ? null : person) =>
        insertApproval(pg, { workspaceId: acmeId, runId, agentId: improverId, status, tool, argumentsPreview: preview, decidedBy });
      // Pending, or approved for other arguments: nothing saved.
      await approval('pending', JSON.stringify(args));
      await approval('approved', JSON.stringify({ ...args, spec: { ...args.spec, instructions: 'other' } }));
      // Approved, with these arguments, by no person (only a person's decision counts): nothing saved.
      await approval('approved', JSON.stringify(args), { type: 'system', reason: 'expired' });
      expect((await callTool(client, 'save_agent', args)).body.error.code).toBe('SAVE_AGENT_NOT_APPROVED');
      expect(await versionsOf(targetId)).toBe(before);
      // Approved with these arguments: saved once; the same call again (a replay) is refused.
      const approved = await approval('approved', JSON.stringify(args));
      const saved = await callTool(client, 'save_agent', args);
      expect(saved.isError).toBe(false);
      expect(saved.body).toMatchObject({ id: targetId, version: before + 1, approvalId: approved });
      expect((await callTool(client, 'save_agent', args)).body.error.code).toBe('SAVE_AGENT_NOT_APPROVED');
      expect(await versionsOf(targetId)).toBe(before + 1);
      // Another agent's approval-less save of an agent that does not allow it: refused first for that.
      expect((await callTool(client, 'save_agent', { agentId: rogueId, spec: scripted('rogue', [{ say: 'x' }]) })).body.error.code).toBe('SELF_IMPROVEMENT_NOT_ALLOWED');
    } finally {
      await client.close();
      await sql.$disconnect();
    }
  });
});
