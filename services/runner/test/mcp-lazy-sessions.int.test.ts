import { SqlPool } from '@switchyard/db';
import { apiClient, startTestMcpServer, startTestPlatform, waitFor, type TestMcpHttpServer, type TestPlatform } from '@switchyard/testing';
import { decideApproval, nextStop } from './approval-test-helpers';

/**
 * Decision 0012's lazy sessions, over real processes and the real MCP test
 * server counting sessions: a run that parks before any external call opens
 * no MCP session (its tools come from the runner's listing cache, listed once
 * for the workspace), and its resumed run opens one session, for the
 * approved call, and calls once. Another workspace's runs get a listing of
 * their own.
 */
jest.setTimeout(180_000);

describe('MCP sessions open at a run’s first call', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let pool: SqlPool;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { RUNNER_MCP_ALLOW_PRIVATE: 'true' } });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    mcp = await startTestMcpServer();
    await platform.startRunner();
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
    await mcp?.close();
  });

  const workspace = async () => {
    const ws = `w${Math.random().toString(36).slice(2, 8)}`;
    return { ws, api: apiClient(platform.gatewayUrl, await platform.createWorkspace(ws)) };
  };
  const agent = async ({ ws, api }: Awaited<ReturnType<typeof workspace>>, name: string) => {
    const response = await api('POST', `/v1/workspaces/${ws}/agents`, {
      name,
      instructions: 'Call the tool, then finish.',
      model: { provider: 'scripted', name: 'script' },
      // delete_everything says destructiveHint: guarded, so mode `default` asks: the run parks at its first call.
      script: [{ tool: 'web.delete_everything', arguments: {} }, { say: 'done' }],
      triggers: [{ kind: 'never.happens' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      permissionMode: 'default',
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const parkedRun = async ({ ws, api }: Awaited<ReturnType<typeof workspace>>, agentId: string) => {
    const started = await api('POST', `/v1/workspaces/${ws}/agents/${agentId}/runs`, { input: 'go' });
    expect(started.status).toBe(201);
    const runId = started.body.id as string;
    const stop = await nextStop(pool, runId);
    expect(stop.status).toBe('awaiting_approval');
    return { runId, approvalId: stop.pending[0]!.id };
  };
  const counts = () => ({ sessions: mcp.sessionsOpened(), lists: mcp.toolLists(), open: mcp.openSessions(), calls: mcp.calls.length });

  it('a parked run opens no session; its resume opens one and calls once; another workspace is listed for itself', async () => {
    const one = await workspace();
    const [a, b] = [await agent(one, 'a'), await agent(one, 'b')];
    // The first run of the workspace lists the server: one session, ended at once.
    await parkedRun(one, a);
    expect(counts()).toEqual({ sessions: 1, lists: 1, open: 0, calls: 0 });
    // Another agent's run in the workspace parks from the cached listing: no session at all.
    const parked = await parkedRun(one, b);
    expect(counts()).toEqual({ sessions: 1, lists: 1, open: 0, calls: 0 });

    expect(await decideApproval(one.api, one.ws, parked.approvalId, 'approve')).toBe(200);
    await waitFor(async () => ((await pool.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text AS status FROM runs WHERE id = $1::uuid`, parked.runId))[0]?.status === 'completed' ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 25,
      what: 'the resumed run to complete',
    });
    // One session for the approved call, no listing, one call; the session ended with the run.
    expect(counts()).toEqual({ sessions: 2, lists: 1, open: 0, calls: 1 });
    expect(mcp.calls.map((call) => call.name)).toEqual(['delete_everything']);

    // The same server in another workspace: listed again, for that workspace.
    const two = await workspace();
    await parkedRun(two, await agent(two, 'c'));
    expect(counts()).toEqual({ sessions: 3, lists: 2, open: 0, calls: 1 });
  });
});
