/**
 * The model port: what the agent loop needs from any model, provider-neutral.
 * These types are internal (never on a wire or in storage), so they are plain
 * TypeScript rather than contract schemas; the transcript has its own schema.
 */
import type { ModelErrorCode } from '@switchyard/contracts';

/** A tool call the model asked for. */
export interface ModelToolCall {
  /** The provider's id, echoed back on the tool result message. */
  id: string;
  name: string;
  /** The arguments as the model wrote them: raw JSON text, possibly invalid (the loop parses it). */
  arguments: string;
}

/** One message of the conversation sent to the model. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool offered to the model. */
export interface ModelTool {
  /** Unique among the tools of one call; what the model names in a tool call. */
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** Tokens one call used, as the provider reported them (0 when it did not). */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (part of `inputTokens`), when it says (`prompt_tokens_details.cached_tokens`). */
  cachedInputTokens?: number;
}

/** What one model call returns. */
export interface ModelResponse {
  message: string | null;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  /**
   * Whether this answer ends the run (after its tool calls, if any). Unset —
   * what a real model's answer is — means the usual rule: an answer without
   * tool calls is the final answer. The scripted model sets it, so a script
   * runs to its last step even through `say`-only steps.
   */
  final?: boolean;
}

/** The input of one model call. */
export interface ModelInput {
  messages: readonly ChatMessage[];
  /** Empty when the run has no tools. */
  tools: readonly ModelTool[];
  /** Aborts the call (and any wait between retries): it then rejects with `model_aborted`. */
  signal: AbortSignal;
  /** Told before the call waits for its provider key's shared rate limit (decision 0060), with the wait in ms. */
  onRateLimitWait?: (waitMs: number) => Promise<void> | void;
}

/** A model the loop talks to: the OpenAI-compatible adapter or the scripted model. */
export interface Model {
  complete(input: ModelInput): Promise<ModelResponse>;
  /**
   * Writes the summary of a teammate's earlier turns (decision 0052) without
   * asking a model; absent, the summary is a `complete` call. The scripted
   * model has one: its summary is deterministic.
   */
  summarize?(input: ModelInput): Promise<ModelResponse>;
  /** Releases what the model holds (its connections), at the run's teardown. */
  close?(): void;
}

/** Why a model call failed (the contracts' MODEL_ERROR_CODES); the loop ends the run `failed` with this code. */
export type { ModelErrorCode };

/** A failed model call. The message never contains the API key. */
export class ModelError extends Error {
  /** HTTP status of the last attempt, when there was a response. */
  readonly status: number | undefined;

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
  }
}
