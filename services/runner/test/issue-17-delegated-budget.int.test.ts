import { Client } from 'pg';
import { newSecretsKey } from '@switchyard/core';
import { apiClient, startLocalOpenAiServer, startTestPlatform, waitFor, type LocalOpenAiReply, type LocalOpenAiRequest, type LocalOpenAiServer, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(180_000);

/**
 * Issue 17, item 7 (decision 0032): a delegated child's spend counts against
 * the parent run's budget. Real gateway, event-log and runner processes; the
 * real `openai` client against a local OpenAI-compatible server whose answers
 * carry known token counts, priced at 10 USD per million input tokens: 400
 * tokens cost 0.004 USD. The parent (perRunUsd 0.01) spends 0.004 and
 * delegates; its child (perRunUsd 1 of its own) may spend only the 0.006 the
 * parent has left: its second call takes the parent's tally to 0.012 and the
 * child fails budget_exceeded, with no third call.
 */
describe('issue 17: a delegated run spends within its parent run budget', () => {
  let platform: TestPlatform;
  let openai: LocalOpenAiServer;
  let pg: Client;
  const requests = new Map<string, LocalOpenAiRequest[]>();
  /** Each model's answers in order; a function answers when its promise does (a call held until something happened). */
  const queues = new Map<string, Array<LocalOpenAiReply | (() => Promise<LocalOpenAiReply>)>>();
  const ws = '/v1/workspaces/acme';

  const reply = (toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>, promptTokens: number, content: string | null = null): LocalOpenAiReply => ({
    type: 'message',
    content,
    toolCalls,
    usage: { prompt_tokens: promptTokens, completion_tokens: 0 },
  });

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({
      respond: async (request) => {
        const model = request.body?.model ?? '';
        requests.set(model, [...(requests.get(model) ?? []), request]);
        const next = queues.get(model)?.shift();
        if (typeof next === 'function') return next();
        return next ?? { type: 'error', status: 400, body: { error: { message: `no reply left for ${model}` } } };
      },
    });
    platform = await startTestPlatform({
      env: { SECRETS_KEY: newSecretsKey(), OPENAI_BASE_URL: openai.baseUrl, MODEL_MAX_ATTEMPTS: '1', MODEL_PRICES: JSON.stringify({ 'b-*': { input: 10, output: 0 } }) },
    });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await openai?.close();
  });

  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    expect((await api('PUT', `${ws}/secrets/openai-key`, { value: 'sk-test-budget-0123456789' })).status).toBe(201);
  });

  /** An agent on model `model` (priced `b-*`) with its own perRunUsd; `lead` may delegate to `helper`. */
  const agent = async (model: string, perRunUsd: number, platformTools: string[]) => {
    const created = await api('POST', `${ws}/agents`, {
      name: model,
      instructions: 'Get it done.',
      task: 'Do what you are asked.',
      model: { provider: 'openai', name: model, apiKeySecret: 'openai-key' },
      tools: { mcpServers: [], platform: platformTools },
      triggers: [{ kind: 'never.fires' }],
      permissionMode: 'bypass',
      budget: { perRunUsd, perDayUsd: 10 },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const family = async (lead: string, helper: string) => {
    const leadId = await agent(lead, 0.01, ['delegate_to_agent']);
    const helperId = await agent(helper, 1, ['list_runs']);
    expect((await api('PUT', `${ws}/agents/${leadId}/collaborators/${helperId}`, { enabled: true })).status).toBe(200);
    return { leadId, helperId };
  };
  const runOf = async (agentId: string) =>
    (await pg.query(`SELECT id::text, status::text, error, outcome, spent_usd::float8 AS spent, origin FROM runs WHERE agent_id = $1`, [agentId])).rows[0];
  const ended = (agentId: string) =>
    waitFor(
      async () => {
        const run = await runOf(agentId);
        return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : null;
      },
      { timeoutMs: 90_000, what: `the run of ${agentId} ended` },
    );
  const delegate = (target: string) => reply([{ id: 'd1', name: 'platform__delegate_to_agent', arguments: { target, objective: 'Count the runs' } }], 400);
  const listRuns = (n: number) => reply([{ id: `l${n}`, name: 'platform__list_runs', arguments: {} }], 400);

  it("the child's cost over the parent's remaining budget fails the child with budget_exceeded; both tallies hold the child's spend", async () => {
    const { leadId, helperId } = await family('b-lead', 'b-helper');
    queues.set('b-lead', [delegate('b-helper'), reply([], 0, 'delegated')]);
    queues.set('b-helper', [1, 2, 3].map(listRuns));
    const started = await api('POST', `${ws}/agents/${leadId}/runs`, { input: 'go' });
    expect(started.status).toBe(201);
    const parent = await ended(leadId);
    const child = await ended(helperId);
    expect(parent).toMatchObject({ id: started.body.id, status: 'completed' });
    expect(child.origin).toMatchObject({ type: 'delegation', parentRunId: parent.id });
    expect(child).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' }, outcome: { turns: 2, costUsd: 0.008 } });
    expect(child.error.message).toContain(parent.id);
    // The child's own cap (1 USD) was far away: it stopped at the parent's.
    expect(requests.get('b-helper')).toHaveLength(2);
    // The parent's spend is its own call and its child's two (the child ran on after the parent ended).
    expect((await runOf(leadId)).spent).toBeCloseTo(0.012, 6);
    expect(child.spent).toBeCloseTo(0.008, 6);
  });

  it("the parent's own budget counts what its child spent: its next call goes over and it fails budget_exceeded", async () => {
    const { leadId, helperId } = await family('b-boss', 'b-worker');
    // The parent's second call is answered once its child has spent 0.004 and completed (0.008 in all so far).
    const childDone = async () => {
      await ended(helperId);
      return reply([], 400, 'all done');
    };
    queues.set('b-boss', [delegate('b-worker'), childDone, reply([], 0, 'never asked')]);
    queues.set('b-worker', [reply([], 400, 'counted')]);
    expect((await api('POST', `${ws}/agents/${leadId}/runs`, { input: 'go' })).status).toBe(201);
    const parent = await ended(leadId);
    expect(await runOf(helperId)).toMatchObject({ status: 'completed', spent: 0.004 });
    // Its own calls cost 0.008 (under its 0.01 cap); with its child's 0.004 it is over.
    expect(parent).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' }, outcome: { costUsd: 0.008 } });
    expect(parent.error.message).toMatch(/^the run and the runs it delegated spent 0\.012000 USD/);
    expect(parent.spent).toBeCloseTo(0.012, 6);
  });
});
