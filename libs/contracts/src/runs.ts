import { z } from 'zod';
import { ApprovalsSettingSchema } from './approvals';
import { PutRetentionSettingsSchema, RETENTION_DEFAULTS, RetentionSettingsSchema } from './retention';
import { CausedBySchema, KindSchema, SubjectSchema } from './facts';

/** Run statuses; `completed | failed | cancelled | dropped` are terminal. */
export const RunStatusSchema = z.enum(['queued', 'running', 'awaiting_approval', 'awaiting_event', 'completed', 'failed', 'cancelled', 'dropped']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** What started a run. */
export const RunOriginSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('trigger'), eventId: z.uuid(), agentVersion: z.number().int().positive(), triggerIndex: z.number().int().min(0) }),
  z.strictObject({ type: z.literal('manual'), input: z.string().max(100_000), userId: z.uuid() }),
  z.strictObject({
    type: z.literal('retry'),
    retryOf: z.uuid(),
    eventId: z.uuid().optional(),
    userId: z.uuid(),
    /** The manual input of the run retried (copied along a chain of retries); absent for trigger runs and retries stored before it existed. */
    input: z.string().max(100_000).optional(),
  }),
  /**
   * A try-drive (decision 0027): run once in shadow by `userId`, its platform
   * reads live under their rights, every other call captured as a wouldHave.
   * `version`: the saved version tried, absent for a draft (its spec is kept with
   * the try). At most one of `eventId` (a recorded fact), `input`; neither: a hand-built fact.
   */
  z.strictObject({
    type: z.literal('try'),
    userId: z.uuid(),
    version: z.number().int().positive().optional(),
    eventId: z.uuid().optional(),
    input: z.string().max(100_000).optional(),
  }),
  /** Started by `delegate_to_agent`: a child run of `parentRunId` (its causedBy), told the objective through its mailbox. */
  z.strictObject({
    type: z.literal('delegation'),
    parentRunId: z.uuid(),
    parentAgentId: z.uuid(),
    objective: z.string().max(10_000),
    context: z.string().max(20_000).optional(),
    userId: z.uuid(),
  }),
  /** A teammate's turn (lane `session:<sessionId>`): it reads its mailbox, which woke it. */
  z.strictObject({ type: z.literal('teammate'), teammateId: z.uuid(), name: z.string().max(64) }),
  /**
   * A turn of a crafting conversation (decision 0056): a run of the workspace's built-in crafting
   * agent (lane `session:<sessionId>`) on a person's `message` and the `canvas` as it stood (hand
   * edits included); `agentId` is the saved agent crafted or the draft id an earlier try returned.
   */
  z.strictObject({
    type: z.literal('craft'),
    userId: z.uuid(),
    message: z.string().max(8_000),
    canvas: z.record(z.string(), z.unknown()),
    agentId: z.uuid().optional(),
  }),
  /** A backfill (decision 0055): the agent activated on a recorded fact, one run per fact of batch `batchId`, started by `userId`. */
  z.strictObject({ type: z.literal('backfill'), batchId: z.uuid(), eventId: z.uuid(), agentVersion: z.number().int().positive(), userId: z.uuid() }),
]);
export type RunOrigin = z.infer<typeof RunOriginSchema>;

/** The type of a run's origin alone (`runs.origin_type`; the status facts carry it). */
export const RunOriginTypeSchema = z.enum(['trigger', 'manual', 'retry', 'try', 'delegation', 'teammate', 'backfill', 'craft']);
export type RunOriginType = z.infer<typeof RunOriginTypeSchema>;
// Both ways: every origin's type is listed, and nothing else.
const _originTypesListed: [RunOrigin['type'], RunOriginType] extends [RunOriginType, RunOrigin['type']] ? true : never = true;

/** The fact that started a run, as the fleet shows it: its kind and subject, kept with the run. */
export const RunTriggerSchema = z.strictObject({
  eventId: z.uuid(),
  kind: KindSchema,
  subject: SubjectSchema,
});
export type RunTrigger = z.infer<typeof RunTriggerSchema>;

/** How a tool call ended, as the outcome counts it and `GET /runs?toolResult=` filters on it. */
export const ToolCallResultSchema = z.enum([
  /** The tool ran and answered. */
  'ok',
  /** Never ran: a policy refusal (deny rule, approval required, plan mode), an unknown tool, arguments that are not a JSON object. */
  'refused',
  /** Ran and erred: the tool or its server failed, timed out, was unreachable or answered something invalid. */
  'failed',
]);
export type ToolCallResult = z.infer<typeof ToolCallResultSchema>;

/** Tool calls of a run by result; the three add up to the outcome's `toolCalls`. */
export const ToolCallCountsSchema = z.strictObject({
  ok: z.number().int().min(0),
  refused: z.number().int().min(0),
  failed: z.number().int().min(0),
});
export type ToolCallCounts = z.infer<typeof ToolCallCountsSchema>;

/**
 * A run's roll-up once it ended. Fields added later are optional, so that
 * outcomes stored before them still parse.
 */
export const RunOutcomeSchema = z.strictObject({
  summary: z.string().max(10_000),
  turns: z.number().int().min(0),
  /** Every tool call the model asked for, whatever its result. */
  toolCalls: z.number().int().min(0),
  /** The same calls by result (absent on outcomes stored before it was counted). */
  toolCallsByResult: ToolCallCountsSchema.optional(),
  tokensIn: z.number().int().min(0),
  tokensOut: z.number().int().min(0),
  costUsd: z.number().min(0),
  /** True when the run's model has no entry in the runner's price table: `costUsd` is 0 because it is unknown, not free. */
  unpriced: z.literal(true).optional(),
  /**
   * Peer-note digests of an `awareness: digest` agent (decision 0047), counted apart: how many
   * digests and notes entered the context, and the input tokens they added (estimated at four
   * characters a token, summed over every model call that carried them; included in `tokensIn`).
   */
  awareness: z.strictObject({ digests: z.number().int().min(0), notes: z.number().int().min(0), addedTokens: z.number().int().min(0) }).optional(),
  /** Input tokens the provider served from its prompt cache (`usage.prompt_tokens_details.cached_tokens`, part of `tokensIn`); absent when none reported. */
  cachedTokensIn: z.number().int().min(0).optional(),
  /** A teammate turn that compacted its conversation (decision 0052): how often and the summary calls' tokens (included in `tokensIn`/`tokensOut`). */
  compaction: z.strictObject({ count: z.number().int().min(0), tokensIn: z.number().int().min(0), tokensOut: z.number().int().min(0) }).optional(),
});
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

/** A run as the API shows it. */
export const RunSchema = z.strictObject({
  id: z.uuid(),
  workspace: z.string(),
  agentId: z.uuid(),
  /** The version it runs; 0 for a try of a draft (decision 0027), which is no saved version. */
  agentVersion: z.number().int().min(0),
  origin: RunOriginSchema,
  /** The fact that started it (trigger runs, their retries, a try of a recorded fact); null for the others and for runs stored before it was kept. */
  trigger: RunTriggerSchema.nullable(),
  status: RunStatusSchema,
  reason: z.string().nullable(),
  causedBy: CausedBySchema.nullable(),
  depth: z.number().int().min(0),
  sessionId: z.uuid(),
  outcome: RunOutcomeSchema.nullable(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  queuedAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  endedAt: z.iso.datetime().nullable(),
});
export type Run = z.infer<typeof RunSchema>;

/**
 * The job on the BullMQ queue `activations`: which run to execute. The job id
 * is the run id, so enqueueing a run twice (a matcher retry, a reconcile)
 * adds one job.
 *
 * schemaVersion changelog:
 * - 1: first version.
 */
export const ActivationJobSchema = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.uuid(),
  workspaceId: z.uuid(),
  agentId: z.uuid(),
});
export type ActivationJob = z.infer<typeof ActivationJobSchema>;

/** BullMQ queue names (under the installation's REDIS_PREFIX). */
export const QUEUES = {
  /** Runs to execute; the runner consumes it. */
  activations: 'activations',
  /** Delayed jobs (job id = approval id) that expire pending approvals; the approvals service adds and consumes them. */
  approvalExpiry: 'approval-expiry',
} as const;

/** `PUT /v1/workspaces/{ws}/settings` body and `GET` response. */
/** Most runs a workspace's `maxConcurrentRuns` may allow (decision 0054). */
export const MAX_WORKSPACE_CONCURRENT_RUNS = 1_000_000;

/** A workspace's ceiling of runs executing at once, over all its agents (decision 0054). */
const MaxConcurrentRunsSchema = z.number().int().min(1).max(MAX_WORKSPACE_CONCURRENT_RUNS);

export const WorkspaceSettingsSchema = z.strictObject({
  /** The kill switch: nothing is activated, running runs are cancelled at their next step. */
  agentsPaused: z.boolean(),
  /** `deny` fails every approval closed at once (recorded); absent means `enabled`. @defaultValue "enabled" */
  approvals: ApprovalsSettingSchema.default('enabled'),
  /** How long facts and transcripts are kept (decision 0041); absent on facts recorded before it, read as the defaults. */
  retention: RetentionSettingsSchema.default({ ...RETENTION_DEFAULTS }),
  /** Most runs of the workspace executing at once, over all its agents: the run queue's fair claim starts no more (decision 0054). @defaultValue absent (no ceiling) */
  maxConcurrentRuns: MaxConcurrentRunsSchema.optional(),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettingsSchema>;

/**
 * `PUT /settings` body: the settings to change; a field left out keeps its
 * saved value (so turning the kill switch on or off never re-opens approvals).
 */
export const PutSettingsRequestSchema = z
  .strictObject({
    agentsPaused: z.boolean().optional(),
    approvals: ApprovalsSettingSchema.optional(),
    retention: PutRetentionSettingsSchema.optional(),
    /** A ceiling of runs at once; null removes it. */
    maxConcurrentRuns: MaxConcurrentRunsSchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one setting' });
export type PutSettingsRequest = z.infer<typeof PutSettingsRequestSchema>;
