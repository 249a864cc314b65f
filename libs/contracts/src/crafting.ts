import { z } from 'zod';
import { AgentIdSchema, AgentSpecSchema } from './agents';
import { FactIdSchema } from './facts';
import { JsonValueSchema } from './json-value';
import { RunIdSchema } from './runs-api';

/*
 * Conversational crafting (docs/decisions/0056-conversational-crafting.md): the
 * page sends a person's message with the canvas (the draft as it stands, hand
 * edits included); the built-in crafting agent answers with `craft_agent`
 * patches and `try_agent_draft` tries, streamed back as SSE events.
 */

/** Most operations in one `craft_agent` patch. */
export const MAX_CRAFT_PATCH_OPS = 50;
/** Longest message of a person (and each earlier turn). */
export const MAX_CRAFT_MESSAGE_CHARS = 8_000;
/** Most model calls one crafting message may make: the built-in crafting agent's `budget.maxTurns`. */
export const MAX_CRAFT_STEPS = 8;

/** The names of the crafting run's two tools (the runner serves them; the gateway reads their results from the transcript). */
export const CRAFT_TOOL_NAMES = { patch: 'craft_agent', try: 'try_agent_draft' } as const;

/** The name of each workspace's built-in crafting agent (created on the first crafting message). */
export const CRAFTING_AGENT_NAME = 'switchyard-crafting';

/** A JSON Pointer (RFC 6901) into the draft: empty (the whole draft) or `/`-separated tokens. */
export const JsonPointerSchema = z
  .string()
  .max(1_000)
  .regex(/^(?:\/(?:[^~/]|~[01])*)*$/, 'a JSON Pointer: empty, or /-separated tokens with ~0 and ~1 escapes');

/**
 * One RFC 6902 operation `craft_agent` accepts: `add`, `replace`, `remove`
 * (`move`, `copy` and `test` are not needed to shape a spec and are refused).
 */
export const CraftPatchOperationSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), path: JsonPointerSchema, value: JsonValueSchema }),
  z.strictObject({ op: z.literal('replace'), path: JsonPointerSchema, value: JsonValueSchema }),
  z.strictObject({ op: z.literal('remove'), path: JsonPointerSchema }),
]);
export type CraftPatchOperation = z.infer<typeof CraftPatchOperationSchema>;

/** The `craft_agent` tool's arguments: a JSON Patch on the draft, applied whole or not at all. */
export const CraftAgentArgumentsSchema = z.strictObject({
  patch: z.array(CraftPatchOperationSchema).min(1).max(MAX_CRAFT_PATCH_OPS),
});
export type CraftAgentArguments = z.infer<typeof CraftAgentArgumentsSchema>;

/**
 * `try_crafted_draft` (a platform tool only a crafting run's token may call, decision 0056): the
 * runner's `try_agent_draft` with the turn's draft and the id its tries are kept under. Without
 * `eventId` the newest recorded fact the draft's triggers match is replayed.
 */
export const TryCraftedDraftToolInputSchema = z.strictObject({
  spec: AgentSpecSchema,
  agentId: AgentIdSchema.optional(),
  eventId: FactIdSchema.optional(),
});
export type TryCraftedDraftToolInput = z.infer<typeof TryCraftedDraftToolInputSchema>;

/** The `try_agent_draft` tool's arguments: the recorded fact to replay (default: the newest its triggers match). */
export const TryAgentDraftArgumentsSchema = z.strictObject({
  eventId: FactIdSchema.optional(),
});
export type TryAgentDraftArguments = z.infer<typeof TryAgentDraftArgumentsSchema>;

/**
 * Why a `craft_agent` patch was refused, returned to the model as the tool's
 * result (and to the page as `patch_refused`); stable, never renamed.
 * - `PATCH_ARGUMENTS_INVALID`: the arguments are not JSON or not a patch of add/replace/remove.
 * - `PATCH_PATH_NOT_FOUND`: an operation's path (or its parent, for `add`) is not in the draft.
 * - `PATCH_SPEC_INVALID`: the patched draft is not a valid agent spec (`issues` at their path).
 */
export const CRAFT_PATCH_REFUSALS = ['PATCH_ARGUMENTS_INVALID', 'PATCH_PATH_NOT_FOUND', 'PATCH_SPEC_INVALID'] as const;
export type CraftPatchRefusal = (typeof CRAFT_PATCH_REFUSALS)[number];

/**
 * `POST /v1/workspaces/{ws}/agents/craft` body (member): a person's message,
 * the canvas as it stands (hand edits included: the model grounds on it and
 * patches it), the conversation it continues, and whose draft it is.
 */
export const CraftMessageRequestSchema = z.strictObject({
  message: z.string().min(1).max(MAX_CRAFT_MESSAGE_CHARS),
  /** The canvas: a whole valid spec (its `enabled` is ignored). */
  draft: AgentSpecSchema,
  /** The saved agent being crafted, or the draft id an earlier try returned; tries are kept under it. @defaultValue a new draft */
  agentId: AgentIdSchema.optional(),
  /** The crafting conversation this message continues (the `sessionId` of its `started` event). @defaultValue a new conversation */
  sessionId: z.uuid().optional(),
});
export type CraftMessageRequest = z.infer<typeof CraftMessageRequestSchema>;

/**
 * The events of a crafting answer (`text/event-stream`, `event:` the type,
 * `data:` this object), in the order they happen; the last is `done` or `error`.
 */
export const CraftEventSchema = z.discriminatedUnion('type', [
  /** First: the crafting run this message is (a turn of the conversation `sessionId`, in the fleet under the crafting agent). */
  z.strictObject({ type: z.literal('started'), runId: RunIdSchema, sessionId: z.uuid(), agentId: AgentIdSchema }),
  /** An accepted patch and the draft it made (defaults filled in): the canvas applies it. */
  z.strictObject({ type: z.literal('patch'), patch: z.array(CraftPatchOperationSchema), draft: AgentSpecSchema }),
  /** A refused patch; the model was told the same. */
  z.strictObject({ type: z.literal('patch_refused'), code: z.enum(CRAFT_PATCH_REFUSALS), message: z.string(), issues: z.array(z.unknown()).optional() }),
  /** A shadow try of the draft was started (decision 0027): the page watches the run. */
  z.strictObject({ type: z.literal('try'), runId: RunIdSchema, agentId: AgentIdSchema, eventId: FactIdSchema.nullable() }),
  /** A try could not be started (no fact to replay, agents paused, …). */
  z.strictObject({ type: z.literal('try_refused'), code: z.string(), message: z.string() }),
  /** What the crafting agent said. */
  z.strictObject({ type: z.literal('say'), text: z.string() }),
  /** The crafting run completed; `steps`: its model calls. */
  z.strictObject({ type: z.literal('done'), steps: z.number().int().min(0) }),
  /** The crafting run ended otherwise (the model failed, its budget, stopped); what was streamed before stands. */
  z.strictObject({ type: z.literal('error'), code: z.string(), message: z.string() }),
]);
export type CraftEvent = z.infer<typeof CraftEventSchema>;

/** What `craft_agent` answers (the tool's result in the transcript): the patch and the draft it made, or the refusal. */
export const CraftAgentResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), patch: z.array(CraftPatchOperationSchema), draft: AgentSpecSchema }),
  z.strictObject({ ok: z.literal(false), code: z.enum(CRAFT_PATCH_REFUSALS), message: z.string(), issues: z.array(z.unknown()).optional() }),
]);
export type CraftAgentResult = z.infer<typeof CraftAgentResultSchema>;

/** What `try_agent_draft` answers: the try started (the page watches it), or why not. */
export const TryAgentDraftResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), runId: RunIdSchema, agentId: AgentIdSchema, eventId: FactIdSchema.nullable(), note: z.string().optional() }),
  z.strictObject({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);
export type TryAgentDraftResult = z.infer<typeof TryAgentDraftResultSchema>;
