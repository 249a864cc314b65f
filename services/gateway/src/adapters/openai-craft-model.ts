import { z } from 'zod';
import { CraftModelError, type CraftChatMessage, type CraftModel, type CraftModelAnswer, type CraftTool } from '../craft-ports';

/** Options of OpenAiCraftModel. */
export interface OpenAiCraftModelOptions {
  /** The endpoint with `/v1` (CRAFT_MODEL_BASE_URL). */
  baseUrl: string;
  /** The model name sent (CRAFT_MODEL_NAME). */
  model: string;
  /** Sent as `Authorization: Bearer` when set (CRAFT_MODEL_API_KEY). */
  apiKey?: string;
  /** Longest wait for one answer (CRAFT_MODEL_TIMEOUT_MS); not retried: a person is waiting and can send again. */
  timeoutMs: number;
}

// The fields of a Chat Completions answer this reads; anything else is let through.
const AnswerSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) })).nullish(),
        }),
      }),
    )
    .min(1),
});

/** A message in the Chat Completions wire form. */
function wireMessage(message: CraftChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls.length ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) } : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/**
 * The crafting agent's model over any OpenAI-compatible endpoint
 * (`POST {baseUrl}/chat/completions`, not streamed): a plain `fetch`, so the
 * gateway carries no model SDK. One attempt per call (decision 0056).
 */
export class OpenAiCraftModel implements CraftModel {
  constructor(private readonly options: OpenAiCraftModelOptions) {}

  async complete({ messages, tools, signal }: { messages: readonly CraftChatMessage[]; tools: readonly CraftTool[]; signal: AbortSignal }): Promise<CraftModelAnswer> {
    const { baseUrl, model, apiKey, timeoutMs } = this.options;
    const body = {
      model,
      messages: messages.map(wireMessage),
      tools: tools.map((tool) => ({ type: 'function', function: tool })),
    };
    let response: Response;
    try {
      response = await fetch(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      throw new CraftModelError(timedOut ? 'model_timeout' : 'model_unreachable', timedOut ? `no answer within ${timeoutMs} ms` : 'the model endpoint could not be reached', { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new CraftModelError(`model_http_${response.status}`, `the model endpoint answered ${response.status}`);
    let parsed: z.infer<typeof AnswerSchema>;
    try {
      parsed = AnswerSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new CraftModelError('model_answer_invalid', 'the model answered something that is not a chat completion', { cause: error });
    }
    const { message } = parsed.choices[0]!;
    return {
      message: message.content ?? null,
      toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    };
  }
}
