import { z } from 'zod';
import { RunStatusSchema } from './runs';

/**
 * What the run protocol's SQL functions return (libs/runs/sql, decision 0044), parsed at
 * libs/runs's adapter like every other outside input: a function changed without its reader
 * fails at the boundary, by name, not deep in the runner. Snake case, as PostgreSQL builds it.
 */

/** A `platform_events` row as `to_jsonb` or `row_to_json` gives it (extra columns allowed: the table's own may grow). */
export const FactRowJsonSchema = z.looseObject({
  id: z.string(),
  workspace_id: z.string(),
  seq: z.union([z.number(), z.string()]),
  kind: z.string(),
  subject_type: z.string(),
  subject_id: z.string(),
  actor: z.unknown(),
  stated_actor: z.unknown(),
  payload: z.unknown(),
  caused_by: z.unknown(),
  idempotency_key: z.string().nullable(),
  ts: z.string(),
});
export type FactRowJson = z.infer<typeof FactRowJsonSchema>;

/** `run_queue_ref`: what the runner needs of a run. */
export const RunQueueRefRowSchema = z.strictObject({
  id: z.string(),
  workspace_id: z.string(),
  slug: z.string(),
  agent_id: z.string(),
  agent_version: z.number().int(),
  status: RunStatusSchema,
  event_id: z.string().nullable(),
  depth: z.number().int(),
});
export type RunQueueRefRow = z.infer<typeof RunQueueRefRowSchema>;

/**
 * A run's context: where it came from, its session and where that session's transcript stands
 * (`run_queue_started`, and the runner's own context read). `origin` is parsed by RunOriginSchema
 * where it is mapped; `transcript_seq` is a bigint, which a plain row gives as text.
 */
export const RunContextRowSchema = z.object({
  origin: z.unknown(),
  session_id: z.string(),
  transcript_seq: z.union([z.number(), z.string()]).nullable(),
  continued: z.boolean(),
  fact_row: FactRowJsonSchema.nullable(),
});
export type RunContextRow = z.infer<typeof RunContextRowSchema>;

/** `run_queue_started`: a run a claim started, with what executing it needs and its stop flags. */
export const RunQueueStartedRowSchema = RunQueueRefRowSchema.extend({
  ...RunContextRowSchema.shape,
  stop_requested: z.boolean(),
  paused: z.boolean(),
  /** Times its lease lapsed and it went back in line to be continued (decision 0051). */
  lease_lapses: z.number().int().min(0),
}).strict();
export type RunQueueStartedRow = z.infer<typeof RunQueueStartedRowSchema>;

/** `run_queue_claim`, `run_queue_claim_lane`: the runs a claim started, and the lapsed ones it failed. */
export const RunQueueClaimRowSchema = z.strictObject({
  started: z.array(RunQueueStartedRowSchema),
  lost: z.array(RunQueueRefRowSchema),
});
export type RunQueueClaimRow = z.infer<typeof RunQueueClaimRowSchema>;

/** `run_queue_end` (and `approvals_park`'s park): whether the ending applied, and the lane's claim made with it. */
export const RunQueueEndRowSchema = RunQueueClaimRowSchema.extend({ ended: z.boolean() }).strict();
export type RunQueueEndRow = z.infer<typeof RunQueueEndRowSchema>;

/** `approvals_park`: parked (the queue's ending), or `deny` (the workspace denies every ask; nothing written). */
export const ApprovalsParkRowSchema = z.union([z.strictObject({ deny: z.literal(true) }), RunQueueEndRowSchema]);
export type ApprovalsParkRow = z.infer<typeof ApprovalsParkRowSchema>;

/** `teammate_wake`: the queued turn's id, or null (one was queued already, or no such live teammate). */
export const TeammateWakeRowSchema = z.string().nullable();

/** `teammate_wake_orphan`: the queued turn's id, `live` (a turn holds the mailbox) or `gone`. */
export const TeammateOrphanWakeRowSchema = z.union([z.literal('live'), z.literal('gone'), z.string()]);
