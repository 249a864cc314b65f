import type { ToolClass } from '@switchyard/contracts';
import { SqlPool } from '@switchyard/db';
import { apiClient, startTestMcpServer, startTestPlatform, waitFor, type TestMcpHttpServer, type TestPlatform } from '@switchyard/testing';
import { decideApproval, nextStop } from './approval-test-helpers';
import { permissionTable, tableSays, type PermissionRow } from './permission-table';

/**
 * Issue 15: the permission table of docs/tool-classes.md, end to end. In
 * each of the four modes and with allow, ask and deny rules, a scripted
 * agent calls a read tool (the platform's `list_runs`), a write tool (an
 * external tool marked `destructiveHint: false`) and a guarded one (an
 * external destructive tool); every call the table says asks parks the run
 * (and, approved, runs once), the rest run or are refused with the table's
 * code. The MCP test server counts what really ran.
 */
jest.setTimeout(300_000);

const TOOLS: Record<ToolClass, string> = { read: 'platform.list_runs', write: 'web.echo', guarded: 'web.delete_everything' };

/** Rule sets, each naming some of the tools, so that every rule combination of the table is met somewhere. */
const RULE_SETS: Array<{ allow: string[]; ask: string[]; deny: string[] }> = [
  { allow: [], ask: [], deny: [] },
  { allow: [TOOLS.guarded], ask: [TOOLS.read], deny: [] },
  { allow: [TOOLS.guarded], ask: [TOOLS.guarded], deny: [TOOLS.write] },
  { allow: [TOOLS.write, TOOLS.read], ask: [TOOLS.read], deny: [TOOLS.read] },
];

describe('issue 15: the permission table over real processes', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let pool: SqlPool;
  beforeAll(async () => {
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({ matcher: true, env: { RUNNER_MCP_ALLOW_PRIVATE: 'true', CLAIM_IDLE_MS: '1000' } });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 4 });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
    await mcp?.close();
  });

  it('exactly the calls the table says ask park; the others run or are refused as it says', async () => {
    const table = permissionTable();
    const api = apiClient(platform.gatewayUrl, await platform.createWorkspace('table'));
    const cases = (['default', 'auto', 'bypass', 'plan'] as const).flatMap((mode) => RULE_SETS.map((rules, set) => ({ mode, rules, name: `${mode}_${set}` })));
    // Created one by one: concurrent agent creations in one workspace were seen to answer 500 (a gateway matter).
    const created: Array<{ status: number; body: any }> = [];
    for (const { mode, rules, name } of cases) {
      created.push(
        await api('POST', '/v1/workspaces/table/agents', {
          name,
          instructions: 'Call the tools.',
          model: { provider: 'scripted', name: 'script', params: {} },
          script: [{ tool: TOOLS.read, arguments: {} }, { tool: TOOLS.write, arguments: { text: name } }, { tool: TOOLS.guarded, arguments: {} }, { say: 'done' }],
          triggers: [{ kind: `table.${name}` }],
          tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }], platform: ['list_runs'] },
          permissionMode: mode,
          rules,
        }),
      );
    }
    expect(created.map((response) => response.status)).toEqual(cases.map(() => 201));
    const results = await Promise.all(
      cases.map(async ({ mode, rules, name }, index) => {
        const agentId = created[index]!.body.id as string;
        expect((await api('POST', '/v1/workspaces/table/events', { kind: `table.${name}`, subject: { type: 't', id: name } })).status).toBe(202);
        const runId = await waitFor(
          async () => (await pool.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM runs WHERE agent_id = $1::uuid`, agentId))[0]?.id,
          { timeoutMs: 60_000, intervalMs: 50, what: `the run of ${name}` },
        );
        // Drive the run: every park is approved, and noted.
        const parked: string[] = [];
        for (;;) {
          const stop = await nextStop(pool, runId, 120_000);
          if (stop.status !== 'awaiting_approval') {
            expect(stop.status).toBe('completed');
            break;
          }
          for (const approval of stop.pending) {
            parked.push((approval.tool as { name: string }).name);
            await decideApproval(platform, approval.id, 'approve');
          }
        }
        const entries = await pool.$queryRawUnsafe<Array<{ content: any }>>(`SELECT content FROM transcript_entries WHERE run_id = $1::uuid AND type = 'tool' ORDER BY seq`, runId);
        return { mode, rules, name, parked, entries };
      }),
    );

    let guardedRan = 0;
    for (const { mode, rules, name, parked, entries } of results) {
      const says = (cls: ToolClass) => tableSays(table, mode as PermissionRow['mode'], (['allow', 'ask', 'deny'] as const).filter((rule) => rules[rule].includes(TOOLS[cls])), cls);
      const classes = ['read', 'write', 'guarded'] as const;
      expect({ name, parked }).toEqual({ name, parked: classes.filter((cls) => says(cls) === 'ask').map((cls) => TOOLS[cls]) });
      const seen = entries.map((entry) => ({ tool: entry.content.name, said: entry.content.ok ? 'ran' : `refuse ${entry.content.error.code}` }));
      const expected = classes.map((cls) => ({ tool: TOOLS[cls], said: ['run', 'ask'].includes(says(cls)) ? 'ran' : says(cls) }));
      expect({ name, seen }).toEqual({ name, seen: expected });
      const echoed = mcp.calls.filter((call) => call.name === 'echo' && call.arguments.text === name).length;
      expect({ name, echoed }).toEqual({ name, echoed: ['run', 'ask'].includes(says('write')) ? 1 : 0 });
      if (['run', 'ask'].includes(says('guarded'))) guardedRan += 1;
    }
    expect(mcp.calls.filter((call) => call.name === 'delete_everything')).toHaveLength(guardedRan);
    // Every mode parked somewhere (bypass through an ask rule).
    expect(results.filter((result) => result.parked.length > 0).map((result) => result.mode)).toEqual(expect.arrayContaining(['default', 'auto', 'bypass', 'plan']));
  });
});
