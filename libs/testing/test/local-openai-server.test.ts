import OpenAI, { APIConnectionError, APIUserAbortError, RateLimitError } from 'openai';
import { startLocalOpenAiServer, type LocalOpenAiServer } from '../src/local-openai-server';
import { waitFor } from '../src/wait-for';

describe('local OpenAI-compatible server', () => {
  let server: LocalOpenAiServer;
  let client: OpenAI;

  beforeEach(async () => {
    server = await startLocalOpenAiServer();
    client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-test-key', maxRetries: 0, timeout: 5_000 });
  });
  afterEach(() => server.close());

  it('answers with the real completion shape and records what it was sent', async () => {
    server.enqueue({ type: 'message', content: 'hello', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      tools,
    });
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    expect(completion.id).toEqual(expect.any(String));
    expect(completion.created).toEqual(expect.any(Number));
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', authorization: 'Bearer sk-test-key' });
    expect(server.requests[0]!.body).toMatchObject({ model: 'gpt-test', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], tools });
  });

  it('countTokens: usage is bytes / 4, and cached_tokens the prefix shared with an earlier request (a prompt cache)', async () => {
    await server.close();
    server = await startLocalOpenAiServer({ countTokens: true, respond: () => ({ type: 'message', content: 'twelve chars' }) });
    client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-test-key', maxRetries: 0, timeout: 5_000 });
    const history = [
      { role: 'system' as const, content: 'be brief '.repeat(40) },
      { role: 'user' as const, content: 'first' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-test', messages: history });
    const second = await client.chat.completions.create({ model: 'gpt-test', messages: [...history, { role: 'assistant', content: 'twelve chars' }, { role: 'user', content: 'second' }] });
    const [a, b] = server.requests.map((request) => request.raw);
    expect(first.usage).toMatchObject({ prompt_tokens: Math.ceil(a!.length / 4), completion_tokens: 3, prompt_tokens_details: { cached_tokens: 0 } });
    // The second body repeats the first up to the end of its messages (`…"first"}`), then goes on.
    const shared = a!.indexOf('"first"}') + '"first"}'.length;
    expect(b!.slice(0, shared)).toBe(a!.slice(0, shared));
    expect(second.usage).toMatchObject({ prompt_tokens: Math.ceil(b!.length / 4), prompt_tokens_details: { cached_tokens: Math.floor(shared / 4) } });
  });

  it('answers with tool calls, passing arguments through as given (even invalid JSON)', async () => {
    server.enqueue({
      type: 'message',
      toolCalls: [
        { id: 'call_a', name: 'one', arguments: { x: 1 } },
        { name: 'two', arguments: '{"broken": ' },
      ],
    });
    const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'one', arguments: '{"x":1}' } },
      { id: expect.any(String), type: 'function', function: { name: 'two', arguments: '{"broken": ' } },
    ]);
  });

  it('serves scripted HTTP errors with their status, headers and an OpenAI-shaped body', async () => {
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after-ms': '250' } });
    const error = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).headers.get('retry-after-ms')).toBe('250');
    expect((error as RateLimitError).error).toMatchObject({ type: 'rate_limit_exceeded' });
  });

  it('streams data frames ending with [DONE], usage in a final chunk without choices', async () => {
    server.enqueue({ type: 'message', content: 'streamed', toolCalls: [{ id: 'c1', name: 't', arguments: '{"a":1}' }], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const args = chunks.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    expect(text).toBe('streamed');
    expect(args).toBe('{"a":1}');
    expect(chunks.at(-1)).toMatchObject({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');

    server.enqueue({ type: 'message', content: 'raw' });
    const raw = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [], stream: true }) });
    const body = await raw.text();
    expect(raw.headers.get('content-type')).toBe('text/event-stream');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(body).not.toContain('"usage"');
  });

  it('uses respond() when the queue is empty, and fails clearly with 400 without either', async () => {
    const dynamic = await startLocalOpenAiServer({ respond: (request) => ({ type: 'message', content: `you said ${String(request.body?.messages.length)}` }) });
    try {
      const dynamicClient = new OpenAI({ baseURL: dynamic.baseUrl, apiKey: 'k', maxRetries: 0 });
      const answer = await dynamicClient.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'a' }] });
      expect(answer.choices[0]!.message.content).toBe('you said 1');
    } finally {
      await dynamic.close();
    }
    const error = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining('no scripted reply left') });
    expect(server.pending()).toBe(0);
  });

  it('delays answers; a client that gives up does not break the server', async () => {
    server.enqueue({ type: 'message', content: 'late', delayMs: 5_000 }, { type: 'message', content: 'next', delayMs: 50 });
    const started = Date.now();
    const late = client.chat.completions.create({ model: 'm', messages: [] }, { signal: AbortSignal.timeout(100) });
    await expect(late).rejects.toBeInstanceOf(APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(2_000);
    const next = await client.chat.completions.create({ model: 'm', messages: [] });
    expect(next.choices[0]!.message.content).toBe('next');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('cuts the connection on a disconnect reply, answers 404 elsewhere, and closes with a request in flight', async () => {
    server.enqueue({ type: 'disconnect' });
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toBeInstanceOf(APIConnectionError);
    const notFound = await fetch(`${server.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: { type: 'invalid_request_error' } });

    server.enqueue({ type: 'message', content: 'never', delayMs: 60_000 });
    const before = server.requests.length;
    const inFlight = client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    await waitFor(async () => server.requests.length > before, { timeoutMs: 5000, intervalMs: 5, what: 'the request in flight' });
    const closing = Date.now();
    await server.close();
    expect(Date.now() - closing).toBeLessThan(1_000);
    expect(await inFlight).toBeInstanceOf(APIConnectionError);
  });
});
