import { MODEL_ERROR_CODES } from '@switchyard/contracts';
import type { NodeFetch } from '@switchyard/core';
import OpenAI, { APIUserAbortError, type ClientOptions } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { ModelError, type ChatMessage, type Model, type ModelInput, type ModelResponse, type ModelTool } from './model';
import { defaultModelHttpPool, type ModelHttpPool } from './model-http-pool';
import { AttemptFailure, classifyOpenAiError } from './openai-errors';
import { StreamedAnswer, usageOf } from './openai-stream';
import type { RateGate } from './rate-gate';
import { DEFAULT_RETRY_OPTIONS, withRetry, type RetryOptions } from './retry';

/** Options of OpenAiModel. */
export interface OpenAiModelOptions {
  /** The provider's model name (`gpt-4.1-mini`). */
  model: string;
  /** The OpenAI-compatible endpoint, with `/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; never appears in error messages. */
  apiKey: string;
  /** Request fields passed through (temperature, …); they cannot replace what the adapter sets. @defaultValue {} */
  params?: Readonly<Record<string, unknown>>;
  /** Longest wait for one attempt's answer. @defaultValue 60000 */
  timeoutMs?: number;
  /** How failed attempts are retried. @defaultValue DEFAULT_RETRY_OPTIONS */
  retry?: Partial<RetryOptions>;
  /**
   * How requests go out: a fetch pinned to the checked address of an agent's
   * own endpoint (closed with the model). @defaultValue through `pool`
   */
  fetch?: NodeFetch;
  /** The process's connections per host, shared by every run (decision 0053). @defaultValue defaultModelHttpPool() */
  pool?: ModelHttpPool;
  /**
   * Ask for the answer as a stream (`stream: true`, usage in the last chunk): nothing waits for a
   * whole body to parse it at once. @defaultValue true
   */
  stream?: boolean;
  /**
   * The provider key's shared rate limit (decision 0060): each attempt waits its turn, and a 429
   * with `retry-after` pauses the bucket for every runner and is retried without counting an attempt.
   * @defaultValue none (only the provider's 429s slow calls down)
   */
  rateGate?: RateGate;
}

/**
 * Request fields `params` may not set: the ones the adapter owns, and `n`
 * (the adapter reads one choice) and the legacy `functions` (a second way to
 * declare tools).
 */
const RESERVED_PARAMS = new Set(['model', 'messages', 'tools', 'stream', 'stream_options', 'n', 'functions', 'function_call']);

/**
 * The model port on the `openai` package's Chat Completions API (OpenAI and
 * compatible servers). The client's own retries are off and its timeout is
 * ours: one retry layer (withRetry) that the run's signal can abort.
 */
export class OpenAiModel implements Model {
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions;

  /** @throws ModelError `model_auth_failed` without an API key; Error for a bad timeout or attempt count. */
  constructor(private readonly options: OpenAiModelOptions) {
    if (!options.apiKey) throw new ModelError(MODEL_ERROR_CODES.authFailed, 'no API key is configured for the model');
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.retry = { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
    if (!(this.timeoutMs > 0)) throw new Error('timeoutMs must be positive');
    if (!Number.isInteger(this.retry.maxAttempts) || this.retry.maxAttempts < 1) throw new Error('maxAttempts must be a positive integer');
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: this.timeoutMs,
      // The client passes a URL string and an init, never a Request; the pool's fetch is undici's own, the one its dispatcher fits.
      ...(options.fetch
        ? { fetch: options.fetch.fetch as ClientOptions['fetch'] }
        : { fetch: (options.pool ?? defaultModelHttpPool()).fetch as ClientOptions['fetch'], fetchOptions: pooledFetchOptions(options.pool ?? defaultModelHttpPool()) }),
      // Explicit nulls, so the client does not pick these up from the runner's environment.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      // The client's debug logs would print prompts; our logging decides what is logged.
      logLevel: 'off',
    });
  }

  /** Releases the sockets of a fetch given with the options (the shared one stays). */
  close(): void {
    this.options.fetch?.close();
  }

  async complete({ messages, tools, signal, onRateLimitWait }: ModelInput): Promise<ModelResponse> {
    const body = this.requestBody(messages, tools);
    const gate = this.options.rateGate;
    // Only a token limit reads the estimate: without one the body is not serialized twice.
    const estimate = gate?.countsTokens ? estimatedTokens(body) : 0;
    try {
      const response = await withRetry(
        async () => {
          await gate?.acquire(estimate, signal, onRateLimitWait);
          return this.attempt(body, signal);
        },
        (failure) => (failure instanceof AttemptFailure ? failure.retry : { retry: false }),
        this.retry,
        signal,
      );
      await gate?.settle(estimate, response.usage.inputTokens + response.usage.outputTokens);
      return response;
    } catch (failure) {
      throw failure instanceof AttemptFailure ? failure.error : failure;
    }
  }

  private requestBody(messages: readonly ChatMessage[], tools: readonly ModelTool[]): ChatCompletionCreateParamsNonStreaming {
    const params = Object.fromEntries(Object.entries(this.options.params ?? {}).filter(([key]) => !RESERVED_PARAMS.has(key)));
    // The API refuses parallel_tool_calls without tools.
    if (tools.length === 0) delete params.parallel_tool_calls;
    // Laid out for providers' prefix caching (decision 0052): what stays the same from call to call
    // (parameters, model, tools) before the messages, which only grow at their end.
    return {
      ...(tools.length > 0 ? { parallel_tool_calls: true } : {}),
      ...params,
      model: this.options.model,
      stream: false,
      ...(tools.length > 0 ? { tools: tools.map(toOpenAiTool) } : {}),
      messages: messages.map(toOpenAiMessage),
    } as ChatCompletionCreateParamsNonStreaming;
  }

  /** One request with its own timeout; a failure is thrown classified (AttemptFailure). */
  private async attempt(body: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal): Promise<ModelResponse> {
    // The client's timeout covers the wait for the headers only; this one also covers reading the body.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (this.options.stream === false) return toModelResponse(await this.client.chat.completions.create(body, { signal: controller.signal }));
      const stream = await this.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal: controller.signal });
      const answer = new StreamedAnswer();
      for await (const chunk of stream) answer.add(chunk);
      // The client's stream ends quietly when aborted: the cut is classified like any abort.
      if (controller.signal.aborted) throw new APIUserAbortError();
      return answer.response();
    } catch (error) {
      if (error instanceof ModelError) throw new AttemptFailure(error, { retry: false });
      throw await this.sharedPause(classifyOpenAiError(error, { apiKey: this.options.apiKey, signal, timedOut, timeoutMs: this.timeoutMs }));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** A 429 with `retry-after`: the shared bucket pauses for every runner, and this call waits its turn again (no attempt counted). */
  private async sharedPause(failure: AttemptFailure): Promise<AttemptFailure> {
    const gate = this.options.rateGate;
    const { retry } = failure;
    // A `retry-after: 0` would make free retries a tight loop against the provider: it counts attempts as before.
    if (!gate || failure.error.status !== 429 || !retry.retry || (retry.retryAfterMs ?? 0) <= 0) return failure;
    await gate.pause(Math.min(retry.retryAfterMs!, this.retry.retryAfterCapMs));
    return new AttemptFailure(failure.error, { retry: true, free: true });
  }
}

/**
 * The request options of every call through the shared pool: its dispatcher, and no redirect
 * followed (`redirect: 'error'`, `window: null`). A model endpoint answers, it does not redirect;
 * and a request that may be redirected is cloned by undici's fetch before it goes — its body
 * teed into two more web streams on every call (decision 0053).
 */
function pooledFetchOptions(pool: ModelHttpPool): ClientOptions['fetchOptions'] {
  const init: RequestInit = { redirect: 'error', window: null };
  return { ...init, dispatcher: pool.dispatcher } as ClientOptions['fetchOptions'];
}

/**
 * Tokens a request is reserved for before it goes: its body at four bytes a token, and the
 * completion cap when the params set one; corrected by the usage the answer reports.
 */
function estimatedTokens(body: ChatCompletionCreateParamsNonStreaming): number {
  const cap = body.max_completion_tokens ?? body.max_tokens ?? 0;
  return Math.ceil(Buffer.byteLength(JSON.stringify(body), 'utf8') / 4) + (typeof cap === 'number' ? cap : 0);
}

function toOpenAiMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        // Some compatible servers refuse an empty tool_calls array.
        ...(message.toolCalls.length > 0
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toOpenAiTool(tool: ModelTool): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters } };
}

/** Reads the first choice; arguments stay raw text (the loop parses and reports invalid JSON). */
function toModelResponse(completion: ChatCompletion): ModelResponse {
  // A compatible server may answer 2xx with something else than a completion object.
  const choice = typeof completion === 'object' && completion !== null && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!choice?.message) throw new ModelError(MODEL_ERROR_CODES.invalidResponse, 'the model answered without a choice');
  const toolCalls = (choice.message.tool_calls ?? []).map((call, index) => {
    if (call.type !== 'function' || typeof call.function?.name !== 'string') {
      throw new ModelError(MODEL_ERROR_CODES.invalidResponse, `the model answered with a tool call of type ${String(call.type)}`);
    }
    return { id: call.id || `call_${index}`, name: call.function.name, arguments: call.function.arguments ?? '' };
  });
  return {
    // A refusal is the model's final word when it gives no content.
    message: choice.message.content ?? choice.message.refusal ?? null,
    toolCalls,
    usage: usageOf(completion.usage),
  };
}
