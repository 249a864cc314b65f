import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalOpenAiServer, waitFor, type LocalOpenAiServer } from '@switchyard/testing';
import { ModelError, type ChatMessage, type ModelTool } from '../src/model/model';
import { OpenAiModel, type OpenAiModelOptions } from '../src/model/openai-model';

const KEY = 'sk-test-0123456789abcdef';
const never = new AbortController().signal;
const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

describe('OpenAiModel against a local OpenAI-compatible server', () => {
  let server: LocalOpenAiServer;
  beforeEach(async () => {
    server = await startLocalOpenAiServer();
  });
  afterEach(() => server.close());

  const model = (options: Partial<OpenAiModelOptions> = {}) =>
    new OpenAiModel({ model: 'gpt-test', baseUrl: server.baseUrl, apiKey: KEY, timeoutMs: 2_000, retry: { baseDelayMs: 20, maxDelayMs: 100, random: () => 0 }, ...options });
  const failure = (promise: Promise<unknown>) => promise.then(() => { throw new Error('expected a ModelError'); }, (error: unknown) => error as ModelError);

  it('sends the conversation, tools and params, and maps a text answer and its usage', async () => {
    server.enqueue({ type: 'message', content: 'done', usage: { prompt_tokens: 120, completion_tokens: 7 } });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'check build 42' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_build', arguments: '{"id":42}' }] },
      { role: 'tool', toolCallId: 'call_1', content: '{"status":"red"}' },
    ];
    const tools: ModelTool[] = [{ name: 'get_build', description: 'Reads a build', parameters: { type: 'object', properties: { id: { type: 'number' } } } }];
    const params = { temperature: 0.2, model: 'other', stream: true, messages: [], tools: [], n: 3 };
    const answer = await model({ params }).complete({ messages, tools, signal: never });

    expect(answer).toEqual({ message: 'done', toolCalls: [], usage: { inputTokens: 120, outputTokens: 7 } });
    const sent = server.requests[0]!;
    expect(sent.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toEqual({
      model: 'gpt-test',
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
      parallel_tool_calls: true,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'check build 42' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_build', arguments: '{"id":42}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"status":"red"}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_build', description: 'Reads a build', parameters: tools[0]!.parameters } }],
    });
  });

  it('sends no tools and no parallel_tool_calls when the run has no tools', async () => {
    server.enqueue({ type: 'message', content: 'ok' });
    await model({ params: { parallel_tool_calls: true } }).complete({ messages: user('hi'), tools: [], signal: never });
    expect(server.requests[0]!.body).not.toHaveProperty('tools');
    expect(server.requests[0]!.body).not.toHaveProperty('parallel_tool_calls');
  });

  it('returns parallel tool calls, with arguments that are not valid JSON passed through raw', async () => {
    server.enqueue({
      type: 'message',
      content: 'calling both',
      toolCalls: [
        { id: 'call_a', name: 'lookup', arguments: '{"q":"a"}' },
        { id: 'call_b', name: 'lookup', arguments: '{"q": "b"' },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 20 },
    });
    const answer = await model().complete({ messages: user('go'), tools: [{ name: 'lookup', parameters: { type: 'object' } }], signal: never });
    expect(answer).toEqual({
      message: 'calling both',
      toolCalls: [
        { id: 'call_a', name: 'lookup', arguments: '{"q":"a"}' },
        { id: 'call_b', name: 'lookup', arguments: '{"q": "b"' },
      ],
      usage: { inputTokens: 10, outputTokens: 20 },
    });
  });

  it('retries a 429 after the retry-after-ms it asked for, then succeeds', async () => {
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after-ms': '300' } }, { type: 'message', content: 'ok' });
    const started = Date.now();
    const answer = await model().complete({ messages: user('hi'), tools: [], signal: never });
    const elapsed = Date.now() - started;
    expect(answer.message).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1_500);
  });

  it('caps a long retry-after (seconds) and gives up with model_rate_limited after the last attempt', async () => {
    for (let i = 0; i < 3; i++) server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '3600' } });
    const started = Date.now();
    const error = await failure(model({ retry: { maxAttempts: 3, retryAfterCapMs: 100, random: () => 0 } }).complete({ messages: user('hi'), tools: [], signal: never }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_rate_limited', status: 429 });
    expect(server.requests).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('retries 500s with backoff and fails with model_unavailable after maxAttempts', async () => {
    for (let i = 0; i < 5; i++) server.enqueue({ type: 'error', status: 500 });
    const error = await failure(model({ retry: { maxAttempts: 4, baseDelayMs: 10, random: () => 0.5 } }).complete({ messages: user('hi'), tools: [], signal: never }));
    expect(error).toMatchObject({ code: 'model_unavailable', status: 500 });
    expect(server.requests).toHaveLength(4);
    expect(server.pending()).toBe(1);
  });

  it('issue 37: does not follow a redirect of the pooled endpoint (the request is not cloned for one): model_unavailable, nothing sent to its location', async () => {
    for (let i = 0; i < 2; i++) server.enqueue({ type: 'error', status: 307, headers: { location: `${server.baseUrl}/moved` } });
    const error = await failure(model({ retry: { maxAttempts: 2, baseDelayMs: 10, random: () => 0 } }).complete({ messages: user('hi'), tools: [], signal: never }));
    expect(error).toMatchObject({ code: 'model_unavailable' });
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it('retries a connection cut and succeeds', async () => {
    server.enqueue({ type: 'disconnect' }, { type: 'message', content: 'back' });
    const answer = await model().complete({ messages: user('hi'), tools: [], signal: never });
    expect(answer.message).toBe('back');
    expect(server.requests).toHaveLength(2);
  });

  it('fails a 401 at once with model_auth_failed and no key in the message, even when the server quotes it', async () => {
    server.enqueue({ type: 'error', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const error = await failure(model().complete({ messages: user('hi'), tools: [], signal: never }));
    expect(error).toMatchObject({ code: 'model_auth_failed', status: 401 });
    expect(error.message).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(error.cause).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  it('fails a 400 at once with model_bad_request, redacting the key from the server text', async () => {
    server.enqueue({ type: 'error', status: 400, body: { error: { message: `bad model for key ${KEY}`, type: 'invalid_request_error', code: null } } });
    const error = await failure(model().complete({ messages: user('hi'), tools: [], signal: never }));
    expect(error).toMatchObject({ code: 'model_bad_request', status: 400 });
    expect(error.message).toContain('bad model for key [redacted]');
    expect(error.message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('issue 37: assembles a streamed answer with tool calls and usage; stream false asks for one body', async () => {
    const reply = { type: 'message' as const, content: 'calling', toolCalls: [{ id: 'c1', name: 'get_build', arguments: { id: 42 } }, { name: 'list', arguments: '{}' }], usage: { prompt_tokens: 9, completion_tokens: 4 } };
    server.enqueue(reply, reply);
    const tools: ModelTool[] = [{ name: 'get_build', parameters: { type: 'object' } }, { name: 'list', parameters: { type: 'object' } }];
    const expected = { message: 'calling', toolCalls: [{ id: 'c1', name: 'get_build', arguments: '{"id":42}' }, { id: expect.any(String), name: 'list', arguments: '{}' }], usage: { inputTokens: 9, outputTokens: 4 } };
    expect(await model().complete({ messages: user('go'), tools, signal: never })).toEqual(expected);
    expect(await model({ stream: false }).complete({ messages: user('go'), tools, signal: never })).toEqual(expected);
    expect(server.requests.map((request) => request.body?.stream)).toEqual([true, false]);
  });

  it('times out a slow answer with model_timeout, within bounds and without retrying', async () => {
    server.enqueue({ type: 'message', content: 'too late', delayMs: 5_000 });
    const started = Date.now();
    const error = await failure(model({ timeoutMs: 200 }).complete({ messages: user('hi'), tools: [], signal: never }));
    const elapsed = Date.now() - started;
    expect(error).toMatchObject({ code: 'model_timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(1);
  });

  it('times out an answer whose body stalls after the headers (the client timeout covers headers only)', async () => {
    const stalling = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"x",');
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stalling.address() as AddressInfo;
      const started = Date.now();
      const error = await failure(model({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 200 }).complete({ messages: user('hi'), tools: [], signal: never }));
      expect(error).toMatchObject({ code: 'model_timeout' });
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      stalling.closeAllConnections();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });

  it('aborts an answer in flight, and a wait between attempts, with model_aborted', async () => {
    server.enqueue({ type: 'message', content: 'slow', delayMs: 5_000 });
    const inFlight = new AbortController();
    const before = server.requests.length;
    let started = Date.now();
    const answering = failure(model().complete({ messages: user('hi'), tools: [], signal: inFlight.signal }));
    // Aborted once the server has the request (the answer is 5 s away).
    await waitFor(async () => server.requests.length > before, { timeoutMs: 5_000, intervalMs: 5, what: 'the request in flight' });
    inFlight.abort(new Error('run stopped'));
    expect(await answering).toMatchObject({ code: 'model_aborted' });
    expect(Date.now() - started).toBeLessThan(1_000);

    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after-ms': '5000' } });
    const waiting = new AbortController();
    started = Date.now();
    const retrying = failure(model({ retry: { retryAfterCapMs: 10_000 } }).complete({ messages: user('hi'), tools: [], signal: waiting.signal }));
    // Aborted once the 429 came back: the model waits 5 s before its next attempt.
    await waitFor(async () => server.requests.length > before + 1, { timeoutMs: 5_000, intervalMs: 5, what: 'the refused attempt' });
    waiting.abort();
    const error = await retrying;
    expect(error).toMatchObject({ code: 'model_aborted' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(2);
  });

  it('does not call the server when the signal is already aborted', async () => {
    const error = await failure(model().complete({ messages: user('hi'), tools: [], signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: 'model_aborted' });
    expect(server.requests).toHaveLength(0);
  });

  it('fails a 2xx answer without choices with model_invalid_response', async () => {
    const odd = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"x","object":"chat.completion","choices":[]}');
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = odd.address() as AddressInfo;
      const error = await failure(model({ baseUrl: `http://127.0.0.1:${port}/v1` }).complete({ messages: user('hi'), tools: [], signal: never }));
      expect(error).toMatchObject({ code: 'model_invalid_response' });
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });

  it('refuses to be built without an API key', () => {
    expect(() => model({ apiKey: '' })).toThrow(expect.objectContaining({ code: 'model_auth_failed' }));
  });
});
