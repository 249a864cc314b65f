import { SqlPool } from '@switchyard/db';
import {
  apiClient,
  spawnService,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { approvalsOfRun, nextStop } from '../../runner/test/approval-test-helpers';

jest.setTimeout(300_000);

/**
 * Issue 15: an approval is durable. Three runs park (one to approve, one to
 * deny, one left to expire); then every service is stopped with SIGTERM and
 * started again — gateway, event-log, matcher, runner and approvals — and
 * the decisions are made on the new processes. The MCP server counts exactly
 * one call for the approved run, none for the denied and the expired ones,
 * and every run completes.
 */
describe('issue 15: parked approvals survive a restart of every service', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let pool: SqlPool;
  let gateway: ServiceProcess | undefined;
  const ENV = { RUNNER_MCP_ALLOW_PRIVATE: 'true', RUNNER_SWEEP_INTERVAL_MS: '500', APPROVALS_SWEEP_INTERVAL_MS: '500', CLAIM_IDLE_MS: '1000' };

  beforeAll(async () => {
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({ matcher: true, approvals: true, runners: 1, env: ENV });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await gateway?.stop('SIGTERM');
    await pool?.$disconnect();
    await platform?.stop();
    await mcp?.close();
  });

  it('approve → the call runs exactly once; deny → never; expiry while everything was down → denied by system', async () => {
    const token = await platform.createWorkspace('acme');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = async (name: string, text: string, extra: Record<string, unknown> = {}) => {
      const created = await api('POST', '/v1/workspaces/acme/agents', {
        name,
        instructions: 'Act on the fact.',
        model: { provider: 'scripted', name: 'script' },
        script: [{ say: `asking for ${text}`, tool: 'web.echo', arguments: { text } }, { say: 'done' }],
        triggers: [{ kind: `${name}.go` }],
        tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
        ...extra,
      });
      expect(created.status).toBe(201);
      const posted = await api('POST', '/v1/workspaces/acme/events', { kind: `${name}.go`, subject: { type: 't', id: name } });
      expect(posted.status).toBe(202);
      return waitFor(
        async () => (await pool.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM runs WHERE event_id = $1::uuid`, posted.body.id))[0]?.id,
        { timeoutMs: 60_000, what: `the run of ${name}` },
      );
    };
    const runs = {
      approve: await agent('approver', 'approved call'),
      deny: await agent('denier', 'denied call'),
      expire: await agent('expirer', 'expired call', { approvals: { timeoutMs: 4_000 } }),
    };
    const approvals: Record<string, string> = {};
    for (const [name, runId] of Object.entries(runs)) {
      const parked = await nextStop(pool, runId);
      expect(parked).toMatchObject({ status: 'awaiting_approval', pending: [expect.objectContaining({ tool_call_id: 'scripted_call_0' })] });
      approvals[name] = parked.pending[0]!.id;
    }
    expect(mcp.calls.filter((call) => call.name === 'echo')).toHaveLength(0);

    // Every service stops; the expiring approval comes due while nothing runs.
    await Promise.all([platform.gateway, ...platform.eventLogs, platform.matcher!, ...platform.runners, platform.approvals!].map((proc) => proc.stop('SIGTERM')));
    await waitFor(
      async () => (await pool.$queryRawUnsafe<Array<{ due: boolean }>>(`SELECT expires_at <= now() AS due FROM approvals WHERE id = $1::uuid`, approvals.expire))[0]?.due,
      { timeoutMs: 30_000, intervalMs: 100, what: 'the expiring approval due' },
    );
    gateway = await spawnService('gateway', platform.env, { readyPattern: /gateway listening/ });
    await Promise.all([platform.startEventLog(), platform.startMatcher(), platform.startRunner(), platform.startApprovals()]);
    const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())?.[1];
    // The same token on the new gateway: tokens live in PostgreSQL.
    const restarted = apiClient(`http://127.0.0.1:${port}`, token);
    const decide = (approvalId: string, decision: 'approve' | 'deny', note: string) =>
      restarted('POST', `/v1/workspaces/acme/approvals/${approvalId}/decision`, { decision, note });
    expect((await decide(approvals.approve!, 'approve', 'go ahead')).status).toBe(200);
    expect((await decide(approvals.deny!, 'deny', 'not today')).status).toBe(200);

    const ended = (runId: string) =>
      waitFor(
        async () => {
          const [row] = await pool.$queryRawUnsafe<Array<{ status: string; outcome: { summary?: string } | null }>>(`SELECT status::text AS status, outcome FROM runs WHERE id = $1::uuid`, runId);
          return row && ['completed', 'failed', 'cancelled'].includes(row.status) ? row : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 50, what: `run ${runId} ended` },
      );
    for (const runId of Object.values(runs)) expect((await ended(runId)).status).toBe('completed');
    const echoed = mcp.calls.filter((call) => call.name === 'echo').map((call) => call.arguments.text);
    expect(echoed).toEqual(['approved call']);
    const [expired] = await approvalsOfRun(pool, runs.expire);
    expect(expired).toMatchObject({ status: 'expired', decided_by: { type: 'system', reason: 'expired' } });
    const [denied] = await approvalsOfRun(pool, runs.deny);
    expect(denied).toMatchObject({ status: 'denied', note: 'not today' });
  });
});
