import { startLocalOpenAiServer, type LocalOpenAiServer } from '@switchyard/testing';
import { createModel, type CreateModelOptions } from '../src/model/create-model';
import { ScriptedModel } from '../src/model/scripted-model';
import type { ModelError } from '../src/model/model';

describe('createModel', () => {
  let server: LocalOpenAiServer;
  let other: LocalOpenAiServer;
  beforeEach(async () => {
    server = await startLocalOpenAiServer();
    other = await startLocalOpenAiServer();
  });
  afterEach(async () => {
    await server.close();
    await other.close();
  });

  const secrets: Record<string, string> = { 'team-key': 'sk-team' };
  const options = (env: Partial<CreateModelOptions['env']> = {}): CreateModelOptions => ({
    fact: null,
    resolveSecret: async (name) => {
      const value = secrets[name];
      if (value === undefined) throw new Error(`no secret ${name}`);
      return value;
    },
    env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-operator', MODEL_TIMEOUT_MS: 2_000, MODEL_MAX_ATTEMPTS: 1, ...env },
  });
  const ask = (model: Awaited<ReturnType<typeof createModel>>) => model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal });
  const failure = (promise: Promise<unknown>) => promise.then(() => { throw new Error('expected a ModelError'); }, (error: unknown) => error as ModelError);

  it('builds the scripted model for the scripted provider', async () => {
    const model = await createModel({ model: { provider: 'scripted', name: 'script' }, script: [{ say: 'hi' }] }, options());
    expect(model).toBeInstanceOf(ScriptedModel);
    expect((await ask(model)).message).toBe('hi');
  });

  it('uses OPENAI_BASE_URL and OPENAI_API_KEY by default', async () => {
    server.enqueue({ type: 'message', content: 'ok' });
    await ask(await createModel({ model: { provider: 'openai', name: 'gpt-test', params: { temperature: 0 } } }, options()));
    expect(server.requests[0]).toMatchObject({ authorization: 'Bearer sk-operator', body: { model: 'gpt-test', temperature: 0 } });
  });

  it('uses the workspace secret named by apiKeySecret, and the agent baseUrl with it', async () => {
    other.enqueue({ type: 'message', content: 'ok' });
    const checked: string[] = [];
    const model = await createModel(
      { model: { provider: 'openai', name: 'm', baseUrl: other.baseUrl, apiKeySecret: 'team-key' } },
      { ...options(), checkBaseUrl: async (url) => void checked.push(url) },
    );
    await ask(model);
    expect(other.requests[0]!.authorization).toBe('Bearer sk-team');
    expect(checked).toEqual([other.baseUrl]);
    expect(server.requests).toHaveLength(0);
  });

  it("sends an agent's own endpoint's requests to the address its check returned, whatever the name resolves to", async () => {
    other.enqueue({ type: 'message', content: 'pinned' });
    const port = new URL(other.baseUrl).port;
    // A name under .test never resolves: only the pin can reach the server.
    const baseUrl = `http://model.example.test:${port}/v1`;
    const model = await createModel(
      { model: { provider: 'openai', name: 'm', baseUrl, apiKeySecret: 'team-key' } },
      { ...options(), checkBaseUrl: async () => ({ hostname: 'model.example.test', address: '127.0.0.1', family: 4 as const }) },
    );
    try {
      expect((await ask(model)).message).toBe('pinned');
      expect(other.requests[0]!.authorization).toBe('Bearer sk-team');
    } finally {
      model.close?.();
    }
  });

  it('never sends the operator key to an agent-chosen baseUrl', async () => {
    const error = await failure(createModel({ model: { provider: 'openai', name: 'm', baseUrl: other.baseUrl } }, options()));
    expect(error).toMatchObject({ code: 'model_auth_failed' });
    expect(other.requests).toHaveLength(0);
    // The operator's own endpoint spelled with a trailing slash is still the operator's.
    server.enqueue({ type: 'message', content: 'ok' });
    await ask(await createModel({ model: { provider: 'openai', name: 'm', baseUrl: `${server.baseUrl}/` } }, options()));
    expect(server.requests[0]!.authorization).toBe('Bearer sk-operator');
  });

  it('refuses a baseUrl the check refuses, before any request', async () => {
    const refuse = async () => {
      throw new Error('private address');
    };
    await expect(createModel({ model: { provider: 'openai', name: 'm', baseUrl: other.baseUrl, apiKeySecret: 'team-key' } }, { ...options(), checkBaseUrl: refuse })).rejects.toThrow('private address');
    expect(other.requests).toHaveLength(0);
  });

  it('fails with model_auth_failed without a key or with a secret that cannot be read', async () => {
    expect(await failure(createModel({ model: { provider: 'openai', name: 'm' } }, options({ OPENAI_API_KEY: undefined })))).toMatchObject({ code: 'model_auth_failed' });
    const missing = await failure(createModel({ model: { provider: 'openai', name: 'm', apiKeySecret: 'nope' } }, options()));
    expect(missing).toMatchObject({ code: 'model_auth_failed', message: expect.stringContaining('nope') });
  });
});
