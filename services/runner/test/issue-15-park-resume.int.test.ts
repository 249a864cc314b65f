import { SqlPool } from '@switchyard/db';
import {
  apiClient,
  startLocalOpenAiServer,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalOpenAiReply,
  type LocalOpenAiRequest,
  type LocalOpenAiServer,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { approvalsOfRun, decideApproval, nextStop } from './approval-test-helpers';

/**
 * Issue 15, the runner's side, over real processes (gateway, event-log,
 * matcher, runners) and the real MCP test server counting calls: a run
 * parks on a durable approval and frees its lane; approved, it is claimed
 * ahead of its agent's queued runs and continues in another runner process
 * with its transcript continuing without a gap or a repeat; the runner
 * SIGKILLed during an approved call never calls it twice (the run hears
 * tool_outcome_unknown); plan mode parks the plan; `approvals: "deny"`
 * refuses at once.
 */
jest.setTimeout(240_000);

const ENV = { RUNNER_MCP_ALLOW_PRIVATE: 'true', RUNNER_SWEEP_INTERVAL_MS: '500', CLAIM_IDLE_MS: '1000' };

describe('issue 15: parked approvals in the runner', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let pool: SqlPool;
  let api: ReturnType<typeof apiClient>;
  let ws: string;
  // One platform for the file (starting one is the slow part); each test has its own workspace,
  // its own MCP server (so its call counts are its own) and its own runners, stopped after it.
  // The real `openai` client's model answers, for the step that asks for several calls at once.
  let replies: LocalOpenAiReply[] = [];
  const requests: LocalOpenAiRequest[] = [];
  let openai: LocalOpenAiServer;
  beforeAll(async () => {
    openai = await startLocalOpenAiServer({
      respond: (request) => {
        requests.push(request);
        return replies.shift() ?? { type: 'error', status: 400, body: { error: { message: 'no reply left' } } };
      },
    });
    platform = await startTestPlatform({ matcher: true, env: { ...ENV, OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test-park', MODEL_MAX_ATTEMPTS: '1' } });
    pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await pool?.$disconnect();
    await platform?.stop();
    await openai?.close();
  });
  beforeEach(async () => {
    mcp = await startTestMcpServer();
    ws = `w${Math.random().toString(36).slice(2, 8)}`;
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace(ws));
  });
  afterEach(async () => {
    await Promise.all(platform.runners.splice(0).map((runner) => runner.stop('SIGTERM')));
    await mcp?.close();
  });

  const agent = async (name: string, kind: string, script: unknown[], extra: Record<string, unknown> = {}) => {
    const response = await api('POST', `/v1/workspaces/${ws}/agents`, {
      name,
      instructions: 'Act on the fact.',
      model: { provider: 'scripted', name: 'script', params: { stepMs: 50 } },
      script,
      triggers: [{ kind }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      ...extra,
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  /** An agent whose model is the local OpenAI-compatible server (its replies set by each test). */
  const openAiAgent = async (name: string, model: string, kind: string, extra: Record<string, unknown> = {}) => {
    const response = await api('POST', `/v1/workspaces/${ws}/agents`, {
      name,
      instructions: 'Act on the fact.',
      model: { provider: 'openai', name: model },
      triggers: [{ kind }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      ...extra,
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const post = async (kind: string, id: string) => expect((await api('POST', `/v1/workspaces/${ws}/events`, { kind, subject: { type: 't', id } })).status).toBe(202);
  const runOfSubject = (agentId: string, subject: string) =>
    waitFor(
      async () =>
        (
          await pool.$queryRawUnsafe<Array<{ id: string }>>(
            `SELECT r.id::text AS id FROM runs r JOIN platform_events e ON e.id = r.event_id WHERE r.agent_id = $1::uuid AND e.subject_id = $2`,
            agentId,
            subject,
          )
        )[0]?.id,
      { timeoutMs: 30_000, intervalMs: 25, what: `the run of ${subject}` },
    );
  const runRow = async (runId: string) =>
    (await pool.$queryRawUnsafe<Array<{ status: string; reason: string | null; started_at: Date | null; ended_at: Date | null; outcome: any; resumes: number }>>(
      `SELECT status::text AS status, reason, started_at, ended_at, outcome, resumes FROM runs WHERE id = $1::uuid`,
      runId,
    ))[0]!;
  const ended = (runId: string) =>
    waitFor(async () => {
      const row = await runRow(runId);
      return ['completed', 'failed', 'cancelled'].includes(row.status) ? row : undefined;
    }, { timeoutMs: 60_000, intervalMs: 25, what: `run ${runId} ended` });
  const entries = async (runId: string) =>
    pool.$queryRawUnsafe<Array<{ seq: number; type: string; content: any }>>(`SELECT seq, type, content FROM transcript_entries WHERE run_id = $1::uuid ORDER BY seq`, runId);
  const callsOf = (name: string) => mcp.calls.filter((call) => call.name === name);

  it('a parked run frees its lane; approved, it is claimed ahead of the agent’s queued runs and continues in another runner, no gap, no repeat', async () => {
    const first = await platform.startRunner();
    const id = await agent('lane', 'lane.go', [
      { say: 'asking first', tool: 'web.echo', arguments: { text: 'parked call' }, when: { path: 'subject.id', op: 'eq', value: 'A' } },
      { say: 'done' },
    ]);
    await post('lane.go', 'A');
    const a = await runOfSubject(id, 'A');
    const parked = await nextStop(pool, a);
    expect(parked.status).toBe('awaiting_approval');
    expect(parked.pending).toHaveLength(1);
    expect(parked.pending[0]).toMatchObject({ kind: 'tool', tool_call_id: 'scripted_call_0', tool: { server: 'web', name: 'web.echo', class: 'write' }, arguments_preview: '{"text":"parked call"}', reason: 'asking first' });
    expect(callsOf('echo')).toHaveLength(0);

    // The lane is free: the agent's next run starts and completes while A waits (concurrency 1).
    await post('lane.go', 'B');
    const b = await runOfSubject(id, 'B');
    expect((await ended(b)).status).toBe('completed');
    expect((await runRow(a)).status).toBe('awaiting_approval');

    // The runner that parked A stops; runs queued meanwhile wait for the next runner.
    await first.stop('SIGTERM');
    await post('lane.go', 'C');
    await post('lane.go', 'D');
    const [c, d] = [await runOfSubject(id, 'C'), await runOfSubject(id, 'D')];
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve', 'go ahead')).toBe(200);
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'deny')).toBe(409);
    const second: ServiceProcess = await platform.startRunner();

    const [rowA, rowC, rowD] = [await ended(a), await ended(c), await ended(d)];
    expect([rowA.status, rowC.status, rowD.status]).toEqual(['completed', 'completed', 'completed']);
    expect(rowA.resumes).toBe(1);
    // Ahead of the runs queued after it: A started (again) before C, C before D.
    expect(rowA.started_at!.getTime()).toBeLessThan(rowC.started_at!.getTime());
    expect(rowC.started_at!.getTime()).toBeLessThan(rowD.started_at!.getTime());
    expect(rowA.started_at!.getTime()).toBeGreaterThan((await runRow(b)).ended_at!.getTime());
    // Continued by the other process: the first one had exited before the approval.
    expect(first.output()).toContain(a);
    expect(second.output()).toContain(a);

    // The parked call ran once, exactly as parked; the transcript goes on after its last step.
    expect(callsOf('echo').map((call) => call.arguments)).toEqual([{ text: 'parked call' }]);
    const transcript = await entries(a);
    expect(transcript.map((entry) => entry.seq)).toEqual(transcript.map((_, i) => transcript[0]!.seq + i));
    // The park records the execution's running time (decision 0050) between the answer and its call's result.
    expect(transcript.map((entry) => entry.type)).toEqual(['system', 'user', 'assistant', 'notice', 'tool', 'assistant']);
    expect(transcript[3]!.content).toMatchObject({ code: 'execution_ran' });
    expect(transcript[4]!.content).toMatchObject({ toolCallId: 'scripted_call_0', name: 'web.echo', ok: true, arguments: { text: 'parked call' } });
    expect(rowA.outcome).toMatchObject({ summary: 'done', turns: 2, toolCalls: 1 });
    const [approval] = await approvalsOfRun(pool, a);
    expect(approval).toMatchObject({ status: 'approved', note: 'go ahead' });
    expect(approval!.execution_started_at).not.toBeNull();

    // Its facts: both starts kept (the resume counter keys the second), and the park names its approval.
    await platform.factsRecorded();
    const facts = await pool.$queryRawUnsafe<Array<{ kind: string; payload: any; idempotency_key: string }>>(
      `SELECT kind, payload, idempotency_key FROM platform_events WHERE subject_id IN ($1, $2) ORDER BY seq`,
      a,
      approval!.id,
    );
    expect(facts.map((fact) => fact.kind)).toEqual([
      'agent.run.queued',
      'agent.run.started',
      'approval.requested',
      'agent.run.awaiting_approval',
      'approval.decided',
      'agent.run.queued',
      'agent.run.started',
      'agent.run.completed',
    ]);
    expect(facts[3]!.payload.approvalIds).toEqual([approval!.id]);
    expect(facts.map((fact) => fact.idempotency_key)).toEqual([
      `run:${a}:queued`,
      `run:${a}:running`,
      `approval:${approval!.id}:pending`,
      `run:${a}:awaiting_approval`,
      `approval:${approval!.id}:approved`,
      `run:${a}:queued:1`,
      `run:${a}:running:1`,
      `run:${a}:completed:1`,
    ]);
  });

  it('a denied call is refused naming who decided and their note, never called; an expired one likewise', async () => {
    await platform.startRunner();
    const id = await agent('deny', 'deny.go', [{ tool: 'web.echo', arguments: { text: 'never' } }, { say: 'handled' }]);
    await post('deny.go', 'X');
    const run = await runOfSubject(id, 'X');
    const parked = await nextStop(pool, run);
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'deny', 'not today')).toBe(200);
    expect((await ended(run)).status).toBe('completed');
    const tool = (await entries(run)).find((entry) => entry.type === 'tool')!;
    expect(tool.content).toMatchObject({ ok: false, refused: true, error: { code: 'approval_denied' } });
    expect(tool.content.error.message).toMatch(/a person \(member [0-9a-f-]{36}\) denied this call; their note: not today/);

    // Expired: the approvals service's update, done here by hand (decision 0025, EXPIRE).
    await post('deny.go', 'Y');
    const late = await runOfSubject(id, 'Y');
    const waiting = await nextStop(pool, late);
    await pool.$executeRawUnsafe(
      `UPDATE approvals SET status = 'expired', decided_by = '{"type":"system","reason":"expired"}', decided_at = now() WHERE id = $1::uuid AND status = 'pending'`,
      waiting.pending[0]!.id,
    );
    await pool.$queryRawUnsafe(`SELECT run_queue_resume($1::uuid)`, late);
    expect((await ended(late)).status).toBe('completed');
    expect((await entries(late)).find((entry) => entry.type === 'tool')!.content).toMatchObject({ ok: false, refused: true, error: { code: 'approval_expired' } });
    expect(callsOf('echo')).toHaveLength(0);
  });

  it('the runner SIGKILLed during an approved call: no second call; the run goes on and hears tool_outcome_unknown', async () => {
    const env = { RUNNER_LEASE_MS: '1500' };
    const doomed = await platform.startRunner(env);
    const id = await agent('killed', 'kill.go', [{ tool: 'web.slow', arguments: { ms: 600_000 } }, { say: 'carried on' }]);
    await post('kill.go', 'K');
    const run = await runOfSubject(id, 'K');
    const parked = await nextStop(pool, run);
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve')).toBe(200);
    await waitFor(async () => callsOf('slow').length === 1, { timeoutMs: 30_000, intervalMs: 20, what: 'the approved call reached the MCP server' });
    await doomed.stop('SIGKILL');
    await platform.startRunner(env);
    const row = await ended(run);
    expect(row.status).toBe('completed');
    expect(row.resumes).toBe(2);
    expect(callsOf('slow')).toHaveLength(1);
    const tools = (await entries(run)).filter((entry) => entry.type === 'tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]!.content).toMatchObject({ toolCallId: 'scripted_call_0', ok: false, error: { code: 'tool_outcome_unknown' } });
    expect(tools[0]!.content.refused).toBeUndefined();
    expect(row.outcome).toMatchObject({ summary: 'carried on', toolCallsByResult: { ok: 0, refused: 0, failed: 1 } });
  });

  it('plan mode: propose → approve → writes run under afterPlan; propose → deny → completed with the plan', async () => {
    await platform.startRunner();
    const script = [
      { tool: 'platform.propose_plan', arguments: { plan: '1. echo the ticket\n2. report' } },
      { tool: 'web.echo', arguments: { text: 'carrying out the plan' } },
      { say: 'plan carried out' },
    ];
    const id = await agent('planner', 'plan.go', script, { permissionMode: 'plan', approvals: { afterPlan: 'auto' } });
    await post('plan.go', 'P1');
    const approved = await runOfSubject(id, 'P1');
    const parked = await nextStop(pool, approved);
    expect(parked.pending).toHaveLength(1);
    expect(parked.pending[0]).toMatchObject({ kind: 'plan', tool: null, arguments_preview: '1. echo the ticket\n2. report' });
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve')).toBe(200);
    // Under afterPlan `auto` the write runs without asking.
    const done = await ended(approved);
    expect(done).toMatchObject({ status: 'completed', outcome: { summary: 'plan carried out' } });
    expect(callsOf('echo').map((call) => call.arguments)).toEqual([{ text: 'carrying out the plan' }]);
    expect((await approvalsOfRun(pool, approved)).map((approval) => approval.kind)).toEqual(['plan']);

    await post('plan.go', 'P2');
    const denied = await runOfSubject(id, 'P2');
    const asked = await nextStop(pool, denied);
    expect(await decideApproval(api, ws, asked.pending[0]!.id, 'deny', 'too risky')).toBe(200);
    expect(await ended(denied)).toMatchObject({ status: 'completed', outcome: { summary: '1. echo the ticket\n2. report', turns: 1 } });
    expect(callsOf('echo')).toHaveLength(1);
  });

  it('plan mode refuses writes before a plan is approved', async () => {
    await platform.startRunner();
    const id = await agent('eager', 'eager.go', [{ tool: 'web.echo', arguments: { text: 'too early' } }, { say: 'refused' }], { permissionMode: 'plan' });
    await post('eager.go', 'E');
    const run = await runOfSubject(id, 'E');
    expect((await ended(run)).status).toBe('completed');
    expect((await entries(run)).find((entry) => entry.type === 'tool')!.content).toMatchObject({ refused: true, error: { code: 'plan_read_only' } });
    expect(callsOf('echo')).toHaveLength(0);
  });

  it('with the workspace setting approvals: deny, every ask is denied at once (recorded) and the run goes on', async () => {
    await platform.startRunner();
    expect((await api('PUT', `/v1/workspaces/${ws}/settings`, { agentsPaused: false, approvals: 'deny' })).status).toBe(200);
    const id = await agent('closed', 'closed.go', [{ tool: 'web.echo', arguments: { text: 'no' } }, { say: 'went on' }]);
    await post('closed.go', 'Z');
    const run = await runOfSubject(id, 'Z');
    expect(await ended(run)).toMatchObject({ status: 'completed', outcome: { summary: 'went on' }, resumes: 0 });
    expect((await entries(run)).find((entry) => entry.type === 'tool')!.content).toMatchObject({ refused: true, error: { code: 'approval_denied' } });
    const [approval] = await approvalsOfRun(pool, run);
    expect(approval).toMatchObject({ status: 'denied', decided_by: { type: 'system', reason: 'approvals_denied' } });
    expect(callsOf('echo')).toHaveLength(0);
    await platform.factsRecorded();
    const kinds = await pool.$queryRawUnsafe<Array<{ kind: string }>>(`SELECT kind FROM platform_events WHERE subject_id IN ($1, $2) ORDER BY seq`, run, approval!.id);
    expect(kinds.map((k) => k.kind)).toEqual(['agent.run.queued', 'agent.run.started', 'approval.requested', 'approval.decided', 'agent.run.completed']);
  });
  it('parallel calls of one step: the allowed one runs, each asking one parks its own approval, the run resumes once all are decided', async () => {
    await platform.startRunner();
    const agentId = await openAiAgent('parallel', 'm-parallel', 'par.go', { rules: { allow: ['web.add'] } });
    replies = [
      {
        type: 'message',
        content: 'three at once',
        toolCalls: [
          { id: 'p1', name: 'web__add', arguments: { a: 1, b: 2 } },
          { id: 'p2', name: 'web__echo', arguments: { text: 'two' } },
          { id: 'p3', name: 'web__delete_everything', arguments: {} },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      },
      { type: 'message', content: 'all three done', toolCalls: [], usage: { prompt_tokens: 1, completion_tokens: 1 } },
    ];
    await post('par.go', 'PAR');
    const run = await runOfSubject(agentId, 'PAR');
    const parked = await nextStop(pool, run);
    expect(parked.status).toBe('awaiting_approval');
    expect(parked.pending.map((approval) => [approval.tool_call_id, (approval.tool as { class: string }).class])).toEqual([
      ['p2', 'write'],
      ['p3', 'guarded'],
    ]);
    expect(parked.pending.every((approval) => approval.reason === 'three at once')).toBe(true);
    expect(callsOf('add')).toHaveLength(1);
    expect((await entries(run)).filter((entry) => entry.type === 'tool').map((entry) => entry.content.toolCallId)).toEqual(['p1']);

    // One decided: the run keeps waiting for the other.
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve')).toBe(200);
    expect((await runRow(run)).status).toBe('awaiting_approval');
    expect(await decideApproval(api, ws, parked.pending[1]!.id, 'approve')).toBe(200);
    expect(await ended(run)).toMatchObject({ status: 'completed', outcome: { summary: 'all three done', toolCalls: 3 } });
    expect([callsOf('add').length, callsOf('echo').length, callsOf('delete_everything').length]).toEqual([1, 1, 1]);
    expect((await entries(run)).filter((entry) => entry.type === 'tool').map((entry) => entry.content.toolCallId)).toEqual(['p1', 'p2', 'p3']);
    // The model's second request answers every call of its first answer.
    expect(requests.at(-1)!.body!.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['p1', 'p2', 'p3']);
    await platform.factsRecorded();
    const [awaiting] = await pool.$queryRawUnsafe<Array<{ payload: any }>>(`SELECT payload FROM platform_events WHERE subject_id = $1 AND kind = 'agent.run.awaiting_approval'`, run);
    expect([...awaiting!.payload.approvalIds].sort()).toEqual(parked.pending.map((approval) => approval.id).sort());
  });

  it('a model that reuses a call id: its second ask is looked up among the approvals (approved and started before), never parked on a decided one', async () => {
    await platform.startRunner();
    const agentId = await openAiAgent('reuser', 'm-reuse', 'reuse.go');
    const ask = (text: string): LocalOpenAiReply => ({
      type: 'message',
      content: null,
      toolCalls: [{ id: 'call_0', name: 'web__delete_everything', arguments: { text } }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
    replies = [ask('first'), ask('second'), { type: 'message', content: 'done', toolCalls: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }];
    await post('reuse.go', 'REUSE');
    const run = await runOfSubject(agentId, 'REUSE');
    const parked = await nextStop(pool, run);
    expect(parked.status).toBe('awaiting_approval');
    expect(await decideApproval(api, ws, parked.pending[0]!.id, 'approve')).toBe(200);
    expect(await ended(run)).toMatchObject({ status: 'completed', outcome: { summary: 'done' } });
    expect(callsOf('delete_everything')).toHaveLength(1);
    const results = (await entries(run)).filter((entry) => entry.type === 'tool').map((entry) => [entry.content.ok, entry.content.error?.code ?? null]);
    expect(results).toEqual([
      [true, null],
      [false, 'tool_outcome_unknown'],
    ]);
    expect(await approvalsOfRun(pool, run)).toHaveLength(1);
  });

  it('a failure to park (the database refuses the approvals row) fails the call; it never runs, and the run goes on', async () => {
    await platform.startRunner();
    const id = await agent('unparkable', 'unpark.go', [{ tool: 'web.echo', arguments: { text: 'must not run' } }, { say: 'went on without it' }]);
    // Fault injection, in this test's workspace only: the approvals insert fails inside the park's transaction.
    const [{ workspace }] = (await pool.$queryRawUnsafe<Array<{ workspace: string }>>(`SELECT workspace_id::text AS workspace FROM agents WHERE id = $1::uuid`, id)) as [{ workspace: string }];
    await pool.$executeRawUnsafe(`CREATE FUNCTION test_refuse_approvals() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.workspace_id = '${workspace}'::uuid THEN RAISE EXCEPTION 'approvals refused by the test'; END IF; RETURN NEW; END $$`);
    await pool.$executeRawUnsafe(`CREATE TRIGGER test_refuse_approvals BEFORE INSERT ON approvals FOR EACH ROW EXECUTE FUNCTION test_refuse_approvals()`);
    try {
      await post('unpark.go', 'U');
      const run = await runOfSubject(id, 'U');
      expect(await ended(run)).toMatchObject({ status: 'completed', outcome: { summary: 'went on without it', toolCallsByResult: { ok: 0, refused: 0, failed: 1 } }, resumes: 0 });
      const tool = (await entries(run)).find((entry) => entry.type === 'tool')!;
      expect(tool.content).toMatchObject({ ok: false, error: { code: 'approval_unavailable' } });
      expect(tool.content.error.message).toContain('approvals refused by the test');
      expect(await approvalsOfRun(pool, run)).toEqual([]);
      expect(callsOf('echo')).toHaveLength(0);
      const statuses = await pool.$queryRawUnsafe<Array<{ kind: string }>>(`SELECT kind FROM fact_outbox WHERE subject_id = $1 UNION ALL SELECT kind FROM platform_events WHERE subject_id = $1`, run);
      expect(statuses.map((row) => row.kind)).not.toContain('agent.run.awaiting_approval');
    } finally {
      await pool.$executeRawUnsafe(`DROP TRIGGER test_refuse_approvals ON approvals`);
      await pool.$executeRawUnsafe(`DROP FUNCTION test_refuse_approvals()`);
    }
  });
});
