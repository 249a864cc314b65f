import { z } from 'zod';
import { ToolCallCountsSchema } from './runs';

/*
 * A run's state between two steps of the agent loop, and the transcript
 * entry contents it is rebuilt from (docs/decisions/0016). The state is
 * never the truth: the run's transcript entries in PostgreSQL are, and the
 * state is what folding them gives — so any runner can continue a run after
 * its last recorded step.
 */

/** A tool call as the model asked for it; `arguments` is the raw JSON text the model wrote (possibly invalid). */
export const RunStateToolCallSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type RunStateToolCall = z.infer<typeof RunStateToolCallSchema>;

/** One message of the conversation, as the model is sent it (tool results and others' messages already rendered as data). */
export const RunStateMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({ role: z.literal('assistant'), content: z.string().nullable(), toolCalls: z.array(RunStateToolCallSchema) }),
  z.strictObject({ role: z.literal('tool'), toolCallId: z.string(), content: z.string() }),
]);
export type RunStateMessage = z.infer<typeof RunStateMessageSchema>;

/** The run's roll-up so far: what its outcome will say. */
export const RunStateTallySchema = z.strictObject({
  /** Model calls answered. */
  turns: z.number().int().min(0),
  toolCalls: ToolCallCountsSchema,
  tokensIn: z.number().int().min(0),
  tokensOut: z.number().int().min(0),
  costUsd: z.number().min(0),
  /** A model call had no price: the cost is unknown, not 0. */
  unpriced: z.boolean(),
  /** The latest non-empty message of the model. */
  summary: z.string(),
  /** Running time of the run's earlier executions, in ms, as their `execution_ran` notices say (decision 0050); absent: none recorded. */
  ranMs: z.number().int().min(0).optional(),
  /** Input tokens the provider reported as served from its prompt cache (part of `tokensIn`); absent: none reported. */
  tokensCached: z.number().int().min(0).optional(),
  /** The compactions this turn made of its teammate's conversation (decision 0052), their tokens also in `tokensIn`/`tokensOut`. */
  compactions: z.strictObject({ count: z.number().int().min(0), tokensIn: z.number().int().min(0), tokensOut: z.number().int().min(0) }).optional(),
  /** Peer-note digests (an agent with `awareness: digest`, decision 0047); absent for every other run. */
  awareness: z
    .strictObject({
      /** The newest observation seq the run has seen (its start, then its last digest's). */
      through: z.number().int().min(0),
      digests: z.number().int().min(0),
      notes: z.number().int().min(0),
      /** Estimated tokens of the digests now in the conversation (each model call sends them all again). */
      contextTokens: z.number().int().min(0),
      /** Estimated input tokens the digests added to the model calls so far. */
      addedTokens: z.number().int().min(0),
    })
    .optional(),
});
export type RunStateTally = z.infer<typeof RunStateTallySchema>;

/** What the run does at its next step. */
export const RunStateNextSchema = z.discriminatedUnion('type', [
  /** Drain the session's mailbox, then ask the model. */
  z.strictObject({ type: z.literal('model') }),
  /** Run the last answer's calls that have no result yet; `final`: that answer ends the run once they ran. */
  z.strictObject({ type: z.literal('tools'), calls: z.array(RunStateToolCallSchema).min(1), final: z.boolean() }),
  /** The last answer was final: close the session's mailbox and complete, or read what came late and ask the model again. */
  z.strictObject({ type: z.literal('finish') }),
]);
export type RunStateNext = z.infer<typeof RunStateNextSchema>;

/** The schema version this code writes. */
export const RUN_STATE_SCHEMA_VERSION = 2;

/**
 * Every RunState version this code reads. Changelog:
 * - 1: first version (issue 14): conversation, tally, envelope ids, next step.
 * - 2: `permissionMode`, the mode a plan-mode run continues in once its plan was approved (issue 15).
 */
export const SUPPORTED_RUN_STATE_VERSIONS: readonly number[] = [1, 2];

/** A run's state after a step; serializable, and what folding the run's transcript entries gives. */
export const RunStateSchema = z.strictObject({
  schemaVersion: z.union([z.literal(1), z.literal(RUN_STATE_SCHEMA_VERSION)]),
  runId: z.uuid(),
  /** The `seq` of the last transcript entry the state includes; 0 before the first. */
  lastSeq: z.number().int().min(0),
  conversation: z.array(RunStateMessageSchema),
  tally: RunStateTallySchema,
  /** Mailbox envelopes already in the conversation: a drain that finds one again (not deleted before a crash) skips it. */
  envelopeIds: z.array(z.uuid()),
  next: RunStateNextSchema,
  /** The mode the run goes on in after its plan was approved (`approvals.afterPlan`); absent: the spec's `permissionMode`. Version 2. */
  permissionMode: z.enum(['default', 'auto']).optional(),
});
export type RunState = z.infer<typeof RunStateSchema>;

/** Stable codes of a RunState that cannot be read. */
export const RUN_STATE_ERRORS = {
  /** Its `schemaVersion` is not in SUPPORTED_RUN_STATE_VERSIONS (written by a newer runner, or not a run state). */
  versionUnsupported: 'run_state_version_unsupported',
  /** A supported version whose shape does not parse. */
  invalid: 'run_state_invalid',
} as const;

/** What parseRunState found: the state, or why it cannot be read (with a stable code). */
export type RunStateParseResult =
  | { ok: true; state: RunState }
  | { ok: false; code: typeof RUN_STATE_ERRORS.versionUnsupported; version: unknown; supported: readonly number[] }
  | { ok: false; code: typeof RUN_STATE_ERRORS.invalid; issues: z.core.$ZodIssue[] };

/** Reads a serialized RunState: an unknown version is refused by its code before its shape is looked at. */
export function parseRunState(value: unknown): RunStateParseResult {
  const version = typeof value === 'object' && value !== null ? (value as { schemaVersion?: unknown }).schemaVersion : undefined;
  if (typeof version !== 'number' || !SUPPORTED_RUN_STATE_VERSIONS.includes(version)) {
    return { ok: false, code: RUN_STATE_ERRORS.versionUnsupported, version, supported: SUPPORTED_RUN_STATE_VERSIONS };
  }
  const parsed = RunStateSchema.safeParse(value);
  return parsed.success ? { ok: true, state: parsed.data } : { ok: false, code: RUN_STATE_ERRORS.invalid, issues: parsed.error.issues };
}

/*
 * The contents of the transcript entries a run's state is rebuilt from
 * (decision 0011 lists them all). Loose: entries carry more fields than the
 * state needs, and fields added later are optional so that older entries parse.
 */

/** `system`: the system prompt. */
export const SystemEntryContentSchema = z.looseObject({ text: z.string() });
/** `user`: the first message, or a drained mailbox envelope (`envelopeId`). */
export const UserEntryContentSchema = z.looseObject({
  text: z.string(),
  envelopeId: z.uuid().optional(),
  /** A peer-note digest (decision 0047): the observation seq it reads through, its notes, and its estimated tokens. */
  awareness: z.looseObject({ through: z.number().int().min(0), notes: z.number().int().min(0), tokens: z.number().int().min(0) }).optional(),
});
/** A model call's tokens; `cachedInputTokens` (part of `inputTokens`) when the provider reported it (`prompt_tokens_details.cached_tokens`). */
const EntryUsageSchema = z.looseObject({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0), cachedInputTokens: z.number().int().min(0).optional() });
/** `assistant`: a model answer with its usage; `final` absent (older entries): final when it asked for no tool call. */
export const AssistantEntryContentSchema = z.looseObject({
  text: z.string().nullable(),
  toolCalls: z.array(RunStateToolCallSchema),
  usage: EntryUsageSchema,
  costUsd: z.number().min(0),
  unpriced: z.literal(true).optional(),
  final: z.boolean().optional(),
  /** How long the model call took, ms (a run's trace, decision 0057); absent in older entries. */
  durationMs: z.number().min(0).optional(),
});
/**
 * `compaction` (decision 0052): a summary that replaces the session's entries
 * `fromSeq`..`throughSeq` (the earlier turns, system prompt aside) in what the
 * model is sent; those entries stay in the transcript. Written by the turn
 * that compacted, with the summary call's usage and cost (counted in its outcome).
 */
export const CompactionEntryContentSchema = z.looseObject({
  summary: z.string(),
  fromSeq: z.number().int().min(1),
  throughSeq: z.number().int().min(1),
  /** Earlier turns (runs) the range covers. */
  turns: z.number().int().min(1),
  /** Estimated tokens of the history before and after. */
  tokensBefore: z.number().int().min(0),
  tokensAfter: z.number().int().min(0),
  usage: EntryUsageSchema,
  costUsd: z.number().min(0),
  unpriced: z.literal(true).optional(),
});
/** `tool`: one call's result (`ok`) or error; `refused`: it never reached the tool; `wouldHave`: a shadow run captured it. */
export const ToolEntryContentSchema = z.looseObject({
  toolCallId: z.string(),
  name: z.string(),
  ok: z.boolean(),
  result: z.string().optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  refused: z.literal(true).optional(),
  /** A shadow run's call that was not executed (decision 0027): `result` is SHADOW_RESULT_TEXT. */
  wouldHave: z.literal(true).optional(),
});
/** `notice`: something the platform reports; not part of the conversation. `mode`: of a `plan_approved` notice, the mode the run goes on in. */
export const NoticeEntryContentSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  mode: z.enum(['default', 'auto']).optional(),
  /** `awareness_started`: the observation seq a digest run reads after (decision 0047). */
  through: z.number().int().min(0).optional(),
  /** `write_call_started`: the call that began, stored before it ran (its result follows it; decision 0051). */
  toolCallId: z.string().optional(),
});

/** A transcript entry as the loop writes it and reads it back: its `seq`, `type` and typed content. */
export const RecordedEntrySchema = z.discriminatedUnion('type', [
  z.strictObject({ seq: z.number().int().min(1), type: z.literal('system'), content: SystemEntryContentSchema }),
  z.strictObject({ seq: z.number().int().min(1), type: z.literal('user'), content: UserEntryContentSchema }),
  z.strictObject({ seq: z.number().int().min(1), type: z.literal('assistant'), content: AssistantEntryContentSchema }),
  z.strictObject({ seq: z.number().int().min(1), type: z.literal('tool'), content: ToolEntryContentSchema }),
  z.strictObject({ seq: z.number().int().min(1), type: z.literal('notice'), content: NoticeEntryContentSchema }),
  z.strictObject({ seq: z.number().int().min(1), type: z.literal('compaction'), content: CompactionEntryContentSchema }),
]);
export type RecordedEntry = z.infer<typeof RecordedEntrySchema>;
