import { z } from 'zod';
import { RunStatusSchema } from './runs';
import { ActivationSkipReasonSchema } from './run-vocabulary';

/*
 * "Why did my agent (not) run?": for one fact, every agent of the workspace
 * with what the matcher decided (`GET /events/{id}/activations`, decision 0034).
 */

/** Why a fact failed a trigger filter: the clause that decided, its place, and what the fact held there. */
export interface FilterMissShape {
  at: string;
  clause: unknown;
  seen?: unknown;
  branches?: FilterMissShape[];
}
export const FilterMissSchema: z.ZodType<FilterMissShape> = z.strictObject({
  /** The clause's place in the filter (`all.1`, `any.0.not`); empty for the root. */
  at: z.string(),
  /** The failing node: a condition, an `any` none of whose branches held, or a `not` whose node held. */
  clause: z.unknown(),
  /** A condition's value at its path in the fact (a long one cut to a string); absent when the path is missing. */
  seen: z.unknown().optional(),
  /** For an `any`: why each branch failed. */
  get branches() {
    return z.array(FilterMissSchema).optional();
  },
});

/** One trigger of the agent version in force, and why the fact did not match it. */
export const TriggerMissSchema = z.strictObject({
  /** The trigger's index in the spec. */
  index: z.number().int().min(0),
  /** Its kind glob. */
  kind: z.string(),
  /** False when the fact's kind is not matched by the glob (the filter was not consulted). */
  kindMatched: z.boolean(),
  /** When the kind matched: the filter clause that failed. */
  filter: FilterMissSchema.optional(),
});

/** A run the fact activated (or recorded `dropped`). */
export const ActivatedRunSchema = z.strictObject({
  id: z.uuid(),
  status: RunStatusSchema,
  reason: z.string().nullable(),
  agentVersion: z.number().int().positive(),
});

const agentFields = {
  agentId: z.uuid(),
  /** The agent's name now. */
  agentName: z.string(),
  /** The version in force when the matcher reached the fact; null when the agent did not exist yet. */
  agentVersion: z.number().int().positive().nullable(),
};

/** What one agent made of the fact. */
export const AgentActivationSchema = z.discriminatedUnion('outcome', [
  /** A run was recorded (queued, running, ended — or `dropped` when its queue was full). */
  z.strictObject({ ...agentFields, outcome: z.literal('activated'), runs: z.array(ActivatedRunSchema) }),
  /** A trigger matched and a guard refused it (kill switch, disabled, self-caused, depth, cooldown, throttle, debounce). */
  z.strictObject({ ...agentFields, outcome: z.literal('skipped'), reason: ActivationSkipReasonSchema }),
  /** No trigger of the version in force matched: each trigger with why. */
  z.strictObject({ ...agentFields, outcome: z.literal('no_match'), triggers: z.array(TriggerMissSchema) }),
  /** The agent was created after the fact was recorded. */
  z.strictObject({ ...agentFields, outcome: z.literal('not_created_yet') }),
  /** The matcher has not reached the fact yet: ask again in a moment. */
  z.strictObject({ ...agentFields, outcome: z.literal('pending') }),
  /** A trigger matched but the matcher recorded no decision (a fact matched before decisions were recorded). */
  z.strictObject({ ...agentFields, outcome: z.literal('unrecorded') }),
]);
export type AgentActivation = z.infer<typeof AgentActivationSchema>;

/**
 * Why the matcher's event bridge did not deliver a fact to a teammate its watch
 * matched (decision 0059): stopped, caused by one of its own turns, at the
 * causation depth cap, within its watch entry's cooldown, or the bridge's own
 * delivery record (`message.sent` of an event message, never delivered again).
 */
export const TEAMMATE_SKIP_REASONS = ['stopped', 'self_caused', 'depth_exceeded', 'cooldown', 'event_echo'] as const;
export const TeammateSkipReasonSchema = z.enum(TEAMMATE_SKIP_REASONS);
export type TeammateSkipReason = z.infer<typeof TeammateSkipReasonSchema>;

const teammateFields = {
  teammateId: z.uuid(),
  name: z.string(),
  team: z.string().nullable(),
};

/** What one teammate's watch made of the fact ("why didn't teammate X wake?"). */
export const TeammateActivationSchema = z.discriminatedUnion('outcome', [
  /** Delivered to its mailbox; `runId` the turn it woke (null: a turn was there to read it). */
  z.strictObject({ ...teammateFields, outcome: z.literal('delivered'), messageId: z.uuid(), runId: z.uuid().nullable(), deliveredAt: z.iso.datetime() }),
  /** A watch entry matched and the bridge's guards refused it. */
  z.strictObject({ ...teammateFields, outcome: z.literal('skipped'), reason: TeammateSkipReasonSchema }),
  /** No watch entry matched: each entry with why (its kind glob, or the filter clause that failed). */
  z.strictObject({ ...teammateFields, outcome: z.literal('no_match'), watch: z.array(TriggerMissSchema) }),
  /** The teammate's `teammate.spawned` fact comes after the fact (in the workspace's fact order the bridge follows). */
  z.strictObject({ ...teammateFields, outcome: z.literal('not_spawned_yet') }),
  /** The matcher has not reached the fact yet: ask again in a moment. */
  z.strictObject({ ...teammateFields, outcome: z.literal('pending') }),
  /** A watch entry matched, nothing was delivered and no guard explains it (the kill switch was on, or the fact predates the bridge). */
  z.strictObject({ ...teammateFields, outcome: z.literal('unrecorded') }),
]);
export type TeammateActivation = z.infer<typeof TeammateActivationSchema>;

/** `GET /v1/workspaces/{ws}/events/{id}/activations`. */
export const EventActivationsResponseSchema = z.strictObject({
  eventId: z.uuid(),
  kind: z.string(),
  seq: z.number().int().positive(),
  /** Every live agent of the workspace (and deleted ones the fact activated), by name. */
  agents: z.array(AgentActivationSchema),
  /** The schedule whose fire recorded the fact (decision 0055: why-not explains a fire), from its fire history; absent for any other fact. */
  firedBy: z.strictObject({ scheduleId: z.uuid(), name: z.string(), slotAt: z.iso.datetime(), late: z.boolean(), manual: z.boolean() }).optional(),
  /** Every teammate of the workspace (stopped ones too), by name: what its watch made of the fact. */
  teammates: z.array(TeammateActivationSchema),
});
export type EventActivationsResponse = z.infer<typeof EventActivationsResponseSchema>;
