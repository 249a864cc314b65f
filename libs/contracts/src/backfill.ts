import { z } from 'zod';
import { KindGlobSchema } from './facts';
import { TriggerFilterSchema } from './trigger-filter';
import { StoppedRunSchema } from './runs-api';

/** A backfill batch's id (a path parameter). */
export const BackfillBatchIdSchema = z.uuid();

/** Most facts one backfill may activate its agent on (decision 0055): a larger range is refused, split it. */
export const BACKFILL_MAX_RUNS = 10_000;

/**
 * `POST /v1/workspaces/{ws}/agents/{id}/backfill`: activate the agent once
 * per fact of the workspace recorded (`ts`) in `[from, to]` whose kind
 * matches `kind` (a kind glob) and that passes `filter`, as runs of origin
 * `backfill` under one batch id. `dryRun`: count them and estimate their
 * cost, writing nothing.
 */
export const BackfillRequestSchema = z
  .strictObject({
    kind: KindGlobSchema,
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    filter: TriggerFilterSchema.optional(),
    dryRun: z.boolean().default(false),
  })
  .refine((body) => Date.parse(body.from) <= Date.parse(body.to), { path: ['from'], message: 'from must not be after to' });
export type BackfillRequest = z.infer<typeof BackfillRequestSchema>;

/** What a backfill answers: the batch (null for a dry run), how many runs it starts, their estimated cost. */
export const BackfillResponseSchema = z.strictObject({
  batchId: z.uuid().nullable(),
  dryRun: z.boolean(),
  /** Facts that will each activate the agent once (the guards passed). */
  runs: z.number().int().min(0),
  /** Facts in the range the guards refuse: caused by this agent's own runs, or past the causation depth. */
  skipped: z.number().int().min(0),
  /** `runs` × the agent's mean cost over its last ended runs; null when it has none. */
  estimatedCostUsd: z.number().min(0).nullable(),
});
export type BackfillResponse = z.infer<typeof BackfillResponseSchema>;

/** What stopping a batch answers: the runs it stopped (each with the causal stop). */
export const BackfillStopResponseSchema = z.strictObject({ batchId: z.uuid(), stopped: z.array(StoppedRunSchema) });
export type BackfillStopResponse = z.infer<typeof BackfillStopResponseSchema>;

/** A batch's status: `running` while its feeder starts runs, `done` once every fact has its run, `stopped` when it ended before (see its reason). */
export const BACKFILL_BATCH_STATUSES = { running: 'running', done: 'done', stopped: 'stopped' } as const;
export const BackfillBatchStatusSchema = z.enum(BACKFILL_BATCH_STATUSES);
export type BackfillBatchStatus = z.infer<typeof BackfillBatchStatusSchema>;

/** Why a batch is `stopped` (decision 0055): no more of its runs start. */
export const BACKFILL_STOP_REASONS = {
  /** A person stopped it (`POST …/backfills/{batchId}/stop`). */
  stopped: 'stopped',
  /** Its agent was deleted. */
  agentDeleted: 'agent_deleted',
  /** Its agent was disabled. */
  agentDisabled: 'agent_disabled',
} as const;
export const BackfillStopReasonSchema = z.enum(BACKFILL_STOP_REASONS);
export type BackfillStopReason = z.infer<typeof BackfillStopReasonSchema>;

/** `GET /v1/workspaces/{ws}/agents/{id}/backfills/{batchId}`: a batch and how far it got; its runs are `GET /runs?batchId=`. */
export const BackfillBatchSchema = z.strictObject({
  id: z.uuid(),
  agentId: z.uuid(),
  /** The agent's version its runs use (pinned, else latest, at creation). */
  agentVersion: z.number().int().positive(),
  status: BackfillBatchStatusSchema,
  /** Why it stopped; null unless `stopped`. */
  reason: BackfillStopReasonSchema.nullable(),
  /** The request as accepted. */
  request: z.strictObject({ kind: KindGlobSchema, from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }), filter: TriggerFilterSchema.optional() }),
  /** Facts chosen at creation: one run each. */
  runs: z.number().int().min(0),
  /** How many of them have their run so far. */
  started: z.number().int().min(0),
  createdBy: z.uuid(),
  createdAt: z.iso.datetime(),
  /** When it stopped or was done; null while running. */
  endedAt: z.iso.datetime().nullable(),
});
export type BackfillBatch = z.infer<typeof BackfillBatchSchema>;
