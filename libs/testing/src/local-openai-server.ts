import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Why this exists: the model adapter must be tested with the real `openai`
 * client and the real wire format (paths, status codes, headers, response
 * shape, SSE framing), not a mock of the client. This is a local
 * OpenAI-compatible server on 127.0.0.1 that answers
 * `POST /v1/chat/completions` from a per-test script and records every
 * request, so a test can assert what the model saw (system prompt, messages,
 * tools, Authorization header).
 */

/** A tool call the scripted model answers with. */
export interface LocalToolCall {
  /** @defaultValue `call_<n>`, unique within the server */
  id?: string;
  name: string;
  /** Sent as given when a string (it may be deliberately invalid JSON); objects are JSON-encoded. */
  arguments: string | Record<string, unknown>;
}

/** Token counts reported with an answer (OpenAI's names). @defaultValue 0 and 0 */
export interface LocalUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** An assistant answer: text and/or tool calls. */
export interface LocalMessageReply {
  type: 'message';
  /** @defaultValue null */
  content?: string | null;
  /** @defaultValue none */
  toolCalls?: LocalToolCall[];
  usage?: LocalUsage;
  /** @defaultValue `tool_calls` when there are tool calls, else `stop` */
  finishReason?: string;
  /** Wait this long before answering (to test timeouts and aborts). @defaultValue 0 */
  delayMs?: number;
}

/** An HTTP error, e.g. `{status: 429, headers: {'retry-after-ms': '200'}}`. */
export interface LocalErrorReply {
  type: 'error';
  status: number;
  /** @defaultValue an OpenAI-shaped `{error: {message, type, code}}` for the status */
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** The connection is destroyed without an answer (a connection error for the client). */
export interface LocalDisconnectReply {
  type: 'disconnect';
  delayMs?: number;
}

/** One scripted answer to one request. */
export type LocalOpenAiReply = LocalMessageReply | LocalErrorReply | LocalDisconnectReply;

/** A request as the server received it. */
export interface LocalOpenAiRequest {
  method: string;
  path: string;
  /** The `Authorization` header as sent (`Bearer <key>`), if any. */
  authorization: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (`model`, `messages`, `tools`, `stream`, …); null when it was not JSON. */
  body: ChatCompletionRequestBody | null;
  /** The body exactly as sent (to compare requests byte for byte). */
  raw: string;
}

/** The fields of a Chat Completions request body tests usually look at. */
export interface ChatCompletionRequestBody {
  model: string;
  messages: Array<Record<string, unknown>>;
  tools?: Array<Record<string, unknown>>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

/** Options of startLocalOpenAiServer. */
export interface LocalOpenAiServerOptions {
  /** Replies served in order, one per `chat/completions` request. @defaultValue [] */
  replies?: LocalOpenAiReply[];
  /** Answers a request when the queue is empty (dynamic answers). @defaultValue none: a 400 saying the script ran out */
  respond?: (request: LocalOpenAiRequest) => LocalOpenAiReply | Promise<LocalOpenAiReply>;
  /** The `model` field of answers. @defaultValue the request's model */
  model?: string;
  /**
   * Reports usage like a provider with automatic prompt caching, for replies
   * that give none: `prompt_tokens` the body's bytes / 4, `completion_tokens`
   * the answer's, and `prompt_tokens_details.cached_tokens` the longest
   * prefix (bytes / 4) the body shares with one of the last
   * CACHE_WINDOW requests. @defaultValue false: 0 tokens
   */
  countTokens?: boolean;
}

/** How many earlier request bodies the stand-in's prompt cache compares with. */
const CACHE_WINDOW = 128;

/** A running local server. */
export interface LocalOpenAiServer {
  /** `http://127.0.0.1:<port>/v1`: pass as the client's `baseURL`. */
  baseUrl: string;
  /** Every request received, in arrival order (also unknown paths and bad bodies). */
  requests: LocalOpenAiRequest[];
  /** Appends replies to the queue. */
  enqueue(...replies: LocalOpenAiReply[]): void;
  /** Replies not served yet. */
  pending(): number;
  /** Stops the server, cutting open connections (delayed answers included). Idempotent. */
  close(): Promise<void>;
}

const COMPLETIONS_PATH = '/v1/chat/completions';
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Starts a local OpenAI-compatible server on 127.0.0.1 and a free port. */
export async function startLocalOpenAiServer(options: LocalOpenAiServerOptions = {}): Promise<LocalOpenAiServer> {
  const queue: LocalOpenAiReply[] = [...(options.replies ?? [])];
  const requests: LocalOpenAiRequest[] = [];
  const ids = { call: 0, completion: 0 };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const request: LocalOpenAiRequest = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0]!,
      authorization: req.headers.authorization,
      headers: { ...req.headers },
      body: parseBody(raw),
      raw,
    };
    const cachedBytes = options.countTokens ? longestSharedPrefix(raw, requests.slice(-CACHE_WINDOW)) : 0;
    requests.push(request);
    if (request.path !== COMPLETIONS_PATH) return sendError(res, { type: 'error', status: 404, body: errorBody(`unknown path ${request.path}`, 'invalid_request_error', 'not_found') });
    if (request.method !== 'POST') return sendError(res, { type: 'error', status: 405, body: errorBody('use POST', 'invalid_request_error', 'method_not_allowed') });
    if (!request.body) return sendError(res, { type: 'error', status: 400, body: errorBody('the body is not a JSON object', 'invalid_request_error', 'invalid_json') });
    const reply = queue.shift() ?? (options.respond ? await options.respond(request) : exhausted());
    if (reply.delayMs && !(await delay(reply.delayMs, res))) return;
    if (reply.type === 'disconnect') {
      req.socket.destroy();
      return;
    }
    if (reply.type === 'error') return sendError(res, reply);
    const counted = options.countTokens && !reply.usage ? countedUsage(raw, reply, cachedBytes) : undefined;
    const completion = toCompletion(counted ? { ...reply, usage: counted.usage } : reply, options.model ?? request.body.model, ids, counted?.cached ?? 0);
    if (request.body.stream === true) return sendStream(res, completion, request.body.stream_options?.include_usage === true);
    sendJson(res, 200, completion);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`local server failed: ${String(error)}`, 'server_error', null));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Cut keep-alive and delayed connections first, or close() waits for them.
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}

/** The longest prefix, in bytes (UTF-16 units), `raw` shares with any of `earlier`'s bodies. */
export function longestSharedPrefix(raw: string, earlier: readonly { raw: string }[]): number {
  let best = 0;
  for (const request of earlier) {
    const other = request.raw;
    const max = Math.min(raw.length, other.length);
    if (max <= best || raw.slice(0, best) !== other.slice(0, best)) continue;
    let n = best;
    while (n < max && raw.charCodeAt(n) === other.charCodeAt(n)) n++;
    best = n;
  }
  return best;
}

/** Usage estimated at four bytes a token, with the cached share of the prompt. */
function countedUsage(raw: string, reply: LocalMessageReply, cachedBytes: number): { usage: LocalUsage; cached: number } {
  const answer = (reply.content ?? '').length + (reply.toolCalls ?? []).reduce((sum, call) => sum + JSON.stringify(call.arguments).length + call.name.length, 0);
  return { usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: Math.ceil(answer / 4) }, cached: Math.floor(cachedBytes / 4) };
}

/** Fails clearly (and without being retried: 400) when a test sends more requests than it scripted. */
function exhausted(): LocalErrorReply {
  return { type: 'error', status: 400, body: errorBody('local OpenAI server: no scripted reply left', 'invalid_request_error', 'script_exhausted') };
}

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

const DEFAULT_ERRORS: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'bad request'],
  401: ['invalid_request_error', 'Incorrect API key provided.'],
  403: ['invalid_request_error', 'You are not allowed to use this model.'],
  404: ['invalid_request_error', 'The model does not exist.'],
  429: ['rate_limit_exceeded', 'Rate limit reached. Please try again later.'],
};

function sendError(res: ServerResponse, reply: LocalErrorReply): void {
  const [type, message] = DEFAULT_ERRORS[reply.status] ?? ['server_error', 'The server had an error while processing your request.'];
  sendJson(res, reply.status, reply.body ?? errorBody(message, type, null), reply.headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The non-streaming `chat.completion` object for a message reply. */
function toCompletion(reply: LocalMessageReply, model: string, ids: { call: number; completion: number }, cachedTokens = 0) {
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${++ids.call}`,
    type: 'function' as const,
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const usage = reply.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
  return {
    id: `chatcmpl-local${++ids.completion}`,
    object: 'chat.completion' as const,
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        // Like the real API, `tool_calls` is absent rather than empty when there are none.
        message: { role: 'assistant' as const, content: reply.content ?? null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      ...usage,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  };
}

type Completion = ReturnType<typeof toCompletion>;

/**
 * Streams a completion as `chat.completion.chunk` frames the way the API does:
 * a role frame, the content, each tool call (id and name, then its arguments),
 * a frame with the finish reason, then (with `include_usage`) a usage frame
 * whose `choices` is empty, then `data: [DONE]`.
 */
function sendStream(res: ServerResponse, completion: Completion, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const { id, created, model } = completion;
  const choice = completion.choices[0]!;
  const frame = (choices: unknown[], usage?: unknown) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...(includeUsage ? { usage: usage ?? null } : {}) })}\n\n`);
  const delta = (d: Record<string, unknown>, finishReason: string | null = null) => frame([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);
  delta({ role: 'assistant', content: '', refusal: null });
  if (choice.message.content) delta({ content: choice.message.content });
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    delta({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
  });
  delta({}, choice.finish_reason);
  if (includeUsage) frame([], completion.usage);
  res.end('data: [DONE]\n\n');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string): ChatCompletionRequestBody | null {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ChatCompletionRequestBody) : null;
  } catch {
    return null;
  }
}

/** Waits `ms`; false when the client went away meanwhile (nothing left to answer). */
function delay(ms: number, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', gone);
      resolve(true);
    }, ms);
    function gone() {
      clearTimeout(timer);
      resolve(false);
    }
    res.once('close', gone);
  });
}
