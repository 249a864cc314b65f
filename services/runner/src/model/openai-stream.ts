import { MODEL_ERROR_CODES } from '@switchyard/contracts';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ModelError, type ModelResponse } from './model';

/** A tool call being assembled from its deltas. */
interface PartialToolCall {
  id: string;
  type: string;
  name: string;
  arguments: string[];
}

/**
 * Assembles a streamed answer (Chat Completions chunks) into the one
 * response the loop records: the text and each tool call's arguments kept
 * as their pieces and joined once at the end, the usage from the last chunk
 * (`stream_options.include_usage`; its `choices` are empty).
 */
export class StreamedAnswer {
  private readonly content: string[] = [];
  private readonly refusal: string[] = [];
  private readonly calls: PartialToolCall[] = [];
  private usage: ModelResponse['usage'] = { inputTokens: 0, outputTokens: 0 };
  private chose = false;

  add(chunk: ChatCompletionChunk): void {
    if (chunk.usage) this.usage = usageOf(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!choice) return;
    this.chose = true;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') this.content.push(delta.content);
    if (typeof delta.refusal === 'string') this.refusal.push(delta.refusal);
    for (const call of delta.tool_calls ?? []) {
      const index = call.index ?? this.calls.length;
      const partial = (this.calls[index] ??= { id: '', type: 'function', name: '', arguments: [] });
      if (call.id) partial.id = call.id;
      if (call.type) partial.type = call.type;
      if (call.function?.name) partial.name += call.function.name;
      if (call.function?.arguments) partial.arguments.push(call.function.arguments);
    }
  }

  /** The answer; a stream that carried no choice is not an answer. */
  response(): ModelResponse {
    if (!this.chose) throw new ModelError(MODEL_ERROR_CODES.invalidResponse, 'the model answered without a choice');
    const toolCalls = this.calls.filter(Boolean).map((call, index) => {
      if (call.type !== 'function' || call.name === '') {
        throw new ModelError(MODEL_ERROR_CODES.invalidResponse, `the model answered with a tool call of type ${call.type}`);
      }
      return { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments.join('') };
    });
    // The role frame carries an empty content: no text at all is null, as in an answer not streamed.
    const text = this.content.join('') || this.refusal.join('') || null;
    return { message: text, toolCalls, usage: this.usage };
  }
}

/** The call's tokens, streamed or not; the cached share only where the provider reports it. */
export function usageOf(usage: ChatCompletion['usage'] | null | undefined): ModelResponse['usage'] {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0, ...(typeof cached === 'number' && cached > 0 ? { cachedInputTokens: cached } : {}) };
}
