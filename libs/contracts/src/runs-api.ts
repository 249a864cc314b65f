import { z } from 'zod';
import { RunOriginTypeSchema, RunSchema, RunStatusSchema, ToolCallResultSchema, WorkspaceSettingsSchema, type RunStatus } from './runs';
import { KindSchema, SubjectSchema } from './facts';

/** Run ids (UUIDv7) in paths and cursors. */
export const RunIdSchema = z.uuid();

/**
 * `GET /v1/workspaces/{ws}/runs` query. Runs come newest first, ordered by id:
 * ids are UUIDv7, so they sort by creation time and never change, which makes
 * the id a stable cursor.
 */
export const ListRunsQuerySchema = z.strictObject({
  /** Only the runs of this agent (deleted agents included: their runs keep their history). */
  agentId: z.uuid().optional(),
  /** Only runs in this status. */
  status: RunStatusSchema.optional(),
  /** Only runs of this agent version (with `agentId`; 0: tries of drafts): what a pin or rollback changed. */
  agentVersion: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  /** Only the runs this fact started (its trigger runs and their retries): what a fact activated. */
  eventId: z.uuid().optional(),
  /** Only the runs this run caused directly (their `causedBy.runId`): a causation graph, one level at a time. */
  causedByRunId: z.uuid().optional(),
  /** Only the runs of this backfill batch (decision 0055): a backfill seen as one in the fleet. */
  batchId: z.uuid().optional(),
  /** Only runs with at least one tool call of this result (`refused`: runs whose calls were refused). */
  toolResult: ToolCallResultSchema.optional(),
  /** The last id of the previous page: the page holds runs older than it. */
  after: RunIdSchema.optional(),
  /** @defaultValue 50 */
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListRunsQuery = z.infer<typeof ListRunsQuerySchema>;

/** `GET /v1/workspaces/{ws}/runs` response. */
export const ListRunsResponseSchema = z.strictObject({
  runs: z.array(RunSchema),
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: RunIdSchema.nullable(),
});

/** `POST /v1/workspaces/{ws}/agents/{id}/runs` body: a manual run with an input message. */
export const StartRunRequestSchema = z.strictObject({
  /** The message the run starts with (the same bound as `RunOriginSchema`'s manual input). */
  input: z.string().min(1).max(100_000),
});
export type StartRunRequest = z.infer<typeof StartRunRequestSchema>;

/** `POST /v1/workspaces/{ws}/runs/{id}/stop` body (optional): the causal stop (decision 0028). */
export const StopRunRequestSchema = z.strictObject({
  /** Also stop every run this run caused, transitively (through `causedBy`), and close their pending approvals. @defaultValue true */
  cascade: z.boolean().default(true),
});
export type StopRunRequest = z.infer<typeof StopRunRequestSchema>;

/** What a stop did to one run: `cancelled` now, `stop_requested` (its runner cancels it at its next step), or `none` (it had already ended). */
export const StopActionSchema = z.enum(['cancelled', 'stop_requested', 'none']);
export type StopAction = z.infer<typeof StopActionSchema>;

/** One run a stop ended or flagged. */
export const StoppedRunSchema = z.strictObject({
  id: z.uuid(),
  agentId: z.uuid(),
  /** Its status after the stop. */
  status: RunStatusSchema,
  action: StopActionSchema.exclude(['none']),
  /** How many of its pending approvals were closed `denied` by the platform (`run_stopped`). */
  approvalsClosed: z.number().int().min(0),
});
export type StoppedRun = z.infer<typeof StoppedRunSchema>;

/** `POST /runs/{id}/stop` response: the run after the stop, what happened to it, and every run the stop ended or flagged (the run itself first). */
export const StopRunResponseSchema = RunSchema.extend({
  action: StopActionSchema,
  stopped: z.array(StoppedRunSchema),
});

/**
 * The fact kind recorded when a run enters each status, subject
 * `{type: "run", id}`. `running` is announced as `agent.run.started`, the name
 * the architecture gives it.
 */
export const RUN_FACT_KINDS = {
  queued: 'agent.run.queued',
  running: 'agent.run.started',
  awaiting_approval: 'agent.run.awaiting_approval',
  awaiting_event: 'agent.run.awaiting_event',
  completed: 'agent.run.completed',
  failed: 'agent.run.failed',
  cancelled: 'agent.run.cancelled',
  dropped: 'agent.run.dropped',
} as const satisfies Record<RunStatus, string>;
export type RunFactKind = (typeof RUN_FACT_KINDS)[RunStatus];

/**
 * Payload of every `agent.run.*` fact: the run's state after the change. Such
 * facts carry the idempotency key `run:<runId>:<status>`, so a repeated
 * emission (a redelivered batch, a retried request) records one fact.
 */
export const RunFactPayloadSchema = z.strictObject({
  agentId: z.uuid(),
  agentVersion: z.number().int().positive(),
  status: RunStatusSchema,
  /** The type of the run's origin; absent on facts recorded before it was added. */
  origin: RunOriginTypeSchema.optional(),
  /** The fact that started the run (trigger runs and their retries). */
  eventId: z.uuid().optional(),
  /** That fact's kind and subject, where the run keeps them (Run.trigger): a live view shows the run without reading the fact. */
  trigger: z.strictObject({ kind: KindSchema, subject: SubjectSchema }).optional(),
  /** Why it was dropped, failed or cancelled (`stopped`, `enqueue_failed`, …); null otherwise. */
  reason: z.string().max(200).nullable(),
  /** `agent.run.awaiting_approval` only: the run's pending approvals it waits for. */
  approvalIds: z.array(z.uuid()).optional(),
});
export type RunFactPayload = z.infer<typeof RunFactPayloadSchema>;

/** Kinds of the facts about workspace state, subject `{type: "workspace", id: <workspace id>}`. */
export const WORKSPACE_FACT_KINDS = {
  /** Settings were saved (every `PUT`, even an unchanged one); the payload is the state after it. */
  settingsChanged: 'workspace.settings_changed',
} as const;

/** A workspace setting a save may change. */
export const WorkspaceSettingNameSchema = z.enum(['agentsPaused', 'approvals', 'retention', 'maxConcurrentRuns']);
export type WorkspaceSettingName = z.infer<typeof WorkspaceSettingNameSchema>;

/**
 * Payload of `workspace.settings_changed`: the settings after the save, and
 * which of them the save changed (`["agentsPaused"]`: the kill switch was
 * turned on or off; empty: nothing changed; absent on facts recorded before it).
 */
export const WorkspaceSettingsChangedPayloadSchema = WorkspaceSettingsSchema.extend({ changed: z.array(WorkspaceSettingNameSchema).optional() });
export type WorkspaceSettingsChangedPayload = z.infer<typeof WorkspaceSettingsChangedPayloadSchema>;
