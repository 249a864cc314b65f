/**
 * The model the crafting agent talks through (decision 0056): an
 * OpenAI-compatible Chat Completions endpoint. Internal types, never on a
 * wire or in storage: plain TypeScript.
 */

/** A tool call the model asked for; `arguments` is the raw JSON text it wrote (possibly invalid). */
export interface CraftToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One message of a crafting conversation, as sent to the model. */
export type CraftChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls: CraftToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool offered to the model: its name, what it is for, the JSON Schema of its arguments. */
export interface CraftTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One answer of the model. */
export interface CraftModelAnswer {
  message: string | null;
  toolCalls: CraftToolCall[];
}

/** The crafting agent's model. */
export interface CraftModel {
  /** One model call; rejects with a CraftModelError. */
  complete(input: { messages: readonly CraftChatMessage[]; tools: readonly CraftTool[]; signal: AbortSignal }): Promise<CraftModelAnswer>;
}

/** A failed model call: `code` is `model_http_<status>`, `model_timeout`, `model_unreachable` or `model_answer_invalid`. */
export class CraftModelError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
