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
