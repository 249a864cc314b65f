import { newSecretsKey } from '@switchyard/core';
import {
  apiClient,
  startLocalOpenAiServer,
  startTestPlatform,
  waitFor,
  type LocalOpenAiServer,
  type ServiceProcess,
  type TestPlatform,
} from '@switchyard/testing';

/**
 * Issue 36: a model on a local endpoint (an OpenAI-compatible server on 127.0.0.1) has its own
 * setting, RUNNER_MODEL_ALLOW_PRIVATE, apart from the MCP servers' RUNNER_MCP_ALLOW_PRIVATE.
 * Real gateway, event-log and runner processes; the runner's real `openai` client against a
 * local OpenAI-compatible server that an agent names as its own `model.baseUrl`. One runner
 * runs at a time, so each run is executed under the settings being tested.
 */
jest.setTimeout(120_000);

const WS = 'local-models';

describe('issue 36: a model on a private address (real processes)', () => {
  let platform: TestPlatform;
  let openai: LocalOpenAiServer;
  let api: ReturnType<typeof apiClient>;
  let agentId: string;
  let runner: ServiceProcess | undefined;

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: 'local answer' }) });
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey(), MODEL_MAX_ATTEMPTS: '1' } });
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace(WS));
    // A keyless local server still needs some key value: the agent's own, as a workspace secret.
    expect((await api('PUT', `/v1/workspaces/${WS}/secrets/local-llm`, { value: 'unused-by-a-local-server' })).status).toBe(201);
    const created = await api('POST', `/v1/workspaces/${WS}/agents`, {
      name: 'local-model',
      instructions: 'Answer briefly.',
      model: { provider: 'openai', name: 'llama3.1', baseUrl: openai.baseUrl, apiKeySecret: 'local-llm' },
      triggers: [{ kind: 'never.happens' }],
    });
    expect(created.status).toBe(201);
    agentId = created.body.id as string;
  });

  afterEach(async () => {
    await runner?.stop('SIGTERM');
    runner = undefined;
  });

  afterAll(async () => {
    await platform?.stop();
    await openai?.close();
  });

  /** Starts a manual run and waits for its end. */
  const run = async (input: string) => {
    const started = await api('POST', `/v1/workspaces/${WS}/agents/${agentId}/runs`, { input });
    expect(started.status).toBe(201);
    return waitFor(
      async () => {
        const body = (await api('GET', `/v1/workspaces/${WS}/runs/${started.body.id}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(body.status) ? body : null;
      },
      { timeoutMs: 60_000, what: `run ${started.body.id} ended` },
    );
  };

  it('is refused by default, before any request, with the setting to use named', async () => {
    runner = await platform.startRunner();
    const ended = await run('hello');
    expect(ended).toMatchObject({ status: 'failed', reason: 'model_url_refused', error: { code: 'model_url_refused' } });
    expect(ended.error.message).toContain('127.0.0.1, a loopback address');
    expect(ended.error.message).toContain('RUNNER_MODEL_ALLOW_PRIVATE=true');
    expect(openai.requests).toHaveLength(0);
  });

  it('is refused with only the MCP setting on: that one is for MCP servers', async () => {
    runner = await platform.startRunner({ RUNNER_MCP_ALLOW_PRIVATE: 'true' });
    expect(await run('hello')).toMatchObject({ status: 'failed', reason: 'model_url_refused' });
    expect(openai.requests).toHaveLength(0);
  });

  it('is called with RUNNER_MODEL_ALLOW_PRIVATE=true, with the agent’s own key', async () => {
    runner = await platform.startRunner({ RUNNER_MODEL_ALLOW_PRIVATE: 'true' });
    const ended = await run('hello');
    expect(ended).toMatchObject({ status: 'completed', outcome: { summary: 'local answer' } });
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]).toMatchObject({ authorization: 'Bearer unused-by-a-local-server', body: { model: 'llama3.1' } });
  });

  it('is called when its host is in RUNNER_MODEL_ALLOWED_HOSTS', async () => {
    runner = await platform.startRunner({ RUNNER_MODEL_ALLOWED_HOSTS: '127.0.0.1' });
    expect(await run('hello again')).toMatchObject({ status: 'completed', outcome: { summary: 'local answer' } });
    expect(openai.requests).toHaveLength(2);
  });
});
