import { z } from 'zod';
import { ModelErrorCodeSchema } from './run-vocabulary';

/*
 * Ops facts (issue 36, decision 0038): the platform's own trouble recorded as
 * facts in each workspace it affects, subject `{type: "platform", id}`, actor
 * `{type: "system", id: "switchyard"}`, at most one per (kind, workspace, key)
 * per window. Every payload has a one-line `summary` for people (the
 * notifier's text when a rule has no template) and the `windowMs` it was
 * rate-limited by.
 */

/** The kinds of ops facts. */
export const OPS_FACT_KINDS = {
  /** A runner's leases lapsed with runs in flight (it died, vanished or stalled). */
  runnerLost: 'platform.runner_lost',
  /** A lane's queue holds at least the backlog threshold of queued runs. */
  queueBacklogged: 'platform.queue_backlogged',
  /** A lane reported backlogged drained below half the threshold. */
  queueRecovered: 'platform.queue_recovered',
  /** A consumer group dead-lettered entries of the workspace within the window. */
  deadLettersGrowing: 'platform.dead_letters_growing',
  /** Model calls of the workspace's runs failed within the window, by provider. */
  modelErrors: 'platform.model_errors',
} as const;
export type OpsFactKind = (typeof OPS_FACT_KINDS)[keyof typeof OPS_FACT_KINDS];

/** The subject type of every ops fact. */
export const OPS_SUBJECT_TYPE = 'platform';

/** Most runs one `platform.runner_lost` fact lists (`runCount` has them all). */
export const MAX_OPS_RUNS_LISTED = 100;

const common = {
  /** One line for people: what happened, with the figures. */
  summary: z.string().min(1).max(500),
  /** At most one fact of this kind and key per this many milliseconds (OPS_FACT_WINDOW_MS). */
  windowMs: z.number().int().positive(),
};
const count = z.number().int().min(0);

/** `platform.runner_lost`: subject `runner:<name>`. */
export const RunnerLostPayloadSchema = z.strictObject({
  ...common,
  /** The runner's name (RUNNER_NAME: the `lease_owner` of the runs it held). */
  runner: z.string().min(1),
  /** When the first of its leases in this workspace lapsed. */
  lapsedAt: z.iso.datetime(),
  /**
   * Its runs of this workspace: those whose lease was found lapsed (`lapsed`),
   * and those it still held then (they lapse too if it is gone).
   */
  runs: z.array(z.strictObject({ runId: z.uuid(), agentId: z.uuid(), lane: z.string(), lapsed: z.boolean() })).max(MAX_OPS_RUNS_LISTED),
  /** How many runs in all (`runs` is cut at MAX_OPS_RUNS_LISTED). */
  runCount: count,
});
export type RunnerLostPayload = z.infer<typeof RunnerLostPayloadSchema>;

/** `platform.queue_backlogged`: subject `lane:<lane>`. */
export const QueueBackloggedPayloadSchema = z.strictObject({
  ...common,
  /** The serialization lane (`agent:<id>`, `session:<id>`, `try:<id>`). */
  lane: z.string().min(1),
  /** The agent whose runs wait in the lane. */
  agentId: z.uuid(),
  /** Queued runs in the lane. */
  depth: count,
  /** OPS_QUEUE_BACKLOG_DEPTH: the depth from which a lane is backlogged. */
  threshold: count,
  oldestQueuedAt: z.iso.datetime(),
  /** Age of the oldest queued run, by the database's clock. */
  oldestAgeMs: count,
});
export type QueueBackloggedPayload = z.infer<typeof QueueBackloggedPayloadSchema>;

/** `platform.queue_recovered`: subject `lane:<lane>`, after a `platform.queue_backlogged` of that lane. */
export const QueueRecoveredPayloadSchema = z.strictObject({
  ...common,
  lane: z.string().min(1),
  /** The agent whose runs the lane holds; null when none of its runs is left to tell. */
  agentId: z.uuid().nullable(),
  depth: count,
  threshold: count,
  /** The depth it dropped below: half the threshold. */
  recoveredBelow: count,
  /** When the first `platform.queue_backlogged` of this stretch was recorded. */
  backloggedSince: z.iso.datetime(),
});
export type QueueRecoveredPayload = z.infer<typeof QueueRecoveredPayloadSchema>;

/** `platform.dead_letters_growing`: subject `dead-letters:<stream>/<group>`. */
export const DeadLettersGrowingPayloadSchema = z.strictObject({
  ...common,
  /** The source stream's full key (`sy:ingest`). */
  stream: z.string().min(1),
  group: z.string().min(1),
  /** Letters of this workspace recorded within the window and not replayed (counted up to 10,000). */
  newLetters: count,
  /** The newest letter (`npm run admin -- dead-letters list` shows it whole). */
  latest: z.strictObject({ id: z.string(), entryId: z.string(), error: z.string().max(500), failedAt: z.iso.datetime() }),
});
export type DeadLettersGrowingPayload = z.infer<typeof DeadLettersGrowingPayloadSchema>;

/** `platform.model_errors`: subject `model:<provider>` or `model:<provider>@<endpoint>`. */
export const ModelErrorsPayloadSchema = z.strictObject({
  ...common,
  /** The agents' `model.provider`. */
  provider: z.string().min(1),
  /** The origin of the agents' own `model.baseUrl`; null: the operator's endpoint (OPENAI_BASE_URL). */
  endpoint: z.string().nullable(),
  /** Runs failed by a model error within the window (`model_aborted` is not one: the run's own signal). */
  failures: count,
  byCode: z.partialRecord(ModelErrorCodeSchema, count),
  /** The agents whose runs failed, most failures first (at most 20). */
  agents: z.array(z.strictObject({ agentId: z.uuid(), failures: count })).max(20),
  /** Some of the failed runs, newest first (at most 10). */
  sampleRunIds: z.array(z.uuid()).max(10),
});
export type ModelErrorsPayload = z.infer<typeof ModelErrorsPayloadSchema>;

/** Each ops kind's payload schema: how a consumer (or a test) reads an ops fact. */
export const OPS_FACT_PAYLOAD_SCHEMAS = {
  [OPS_FACT_KINDS.runnerLost]: RunnerLostPayloadSchema,
  [OPS_FACT_KINDS.queueBacklogged]: QueueBackloggedPayloadSchema,
  [OPS_FACT_KINDS.queueRecovered]: QueueRecoveredPayloadSchema,
  [OPS_FACT_KINDS.deadLettersGrowing]: DeadLettersGrowingPayloadSchema,
  [OPS_FACT_KINDS.modelErrors]: ModelErrorsPayloadSchema,
} as const satisfies Record<OpsFactKind, z.ZodType>;
