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
  const queues = new Map<string, LocalOpenAiReply[]>();
  const ws = '/v1/workspaces/acme';

  const reply = (toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>, promptTokens: number, content: string | null = null): LocalOpenAiReply => ({
    type: 'message',
    content,
    toolCalls,
    usage: { prompt_tokens: promptTokens, completion_tokens: 0 },
  });

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({
      respond: (request) => {
        const model = request.body?.model ?? '';
        requests.set(model, [...(requests.get(model) ?? []), request]);
        return queues.get(model)?.shift() ?? { type: 'error', status: 400, body: { error: { message: `no reply left for ${model}` } } };
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

  it("the child's cost over the parent's remaining budget fails the child with budget_exceeded; both tallies hold the child's spend", async () => {
    const api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    expect((await api('PUT', `${ws}/secrets/openai-key`, { value: 'sk-test-budget-0123456789' })).status).toBe(201);
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
    const lead = await agent('b-lead', 0.01, ['delegate_to_agent']);
    const helper = await agent('b-helper', 1, ['list_runs']);
    expect((await api('PUT', `${ws}/agents/${lead}/collaborators/${helper}`, { enabled: true })).status).toBe(200);
    queues.set('b-lead', [reply([{ id: 'd1', name: 'platform__delegate_to_agent', arguments: { target: 'b-helper', objective: 'Count the runs' } }], 400), reply([], 0, 'delegated')]);
    queues.set('b-helper', [1, 2, 3].map((n) => reply([{ id: `l${n}`, name: 'platform__list_runs', arguments: {} }], 400)));

    const started = await api('POST', `${ws}/agents/${lead}/runs`, { input: 'go' });
    expect(started.status).toBe(201);
    const ended = (agentId: string) =>
      waitFor(
        async () => {
          const { rows } = await pg.query(`SELECT id::text, status::text, error, outcome, spent_usd::float8 AS spent, origin FROM runs WHERE agent_id = $1`, [agentId]);
          return rows[0] && ['completed', 'failed', 'cancelled'].includes(rows[0].status) ? rows[0] : null;
        },
        { timeoutMs: 90_000, what: `the run of ${agentId} ended` },
      );
    const parent = await ended(lead);
    const child = await ended(helper);
    expect(parent).toMatchObject({ id: started.body.id, status: 'completed' });
    expect(child.origin).toMatchObject({ type: 'delegation', parentRunId: parent.id });
    expect(child).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' }, outcome: { turns: 2, costUsd: 0.008 } });
    expect(child.error.message).toContain(parent.id);
    // The child's own cap (1 USD) was far away: it stopped at the parent's.
    expect(requests.get('b-helper')).toHaveLength(2);
    // The parent's spend is its own call and its child's two (the child ran on after the parent ended).
    const { rows } = await pg.query(`SELECT spent_usd::float8 AS spent FROM runs WHERE id = $1`, [parent.id]);
    expect(rows[0].spent).toBeCloseTo(0.012, 6);
    expect(child.spent).toBeCloseTo(0.008, 6);
  });
});
