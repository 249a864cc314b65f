import { z } from 'zod';
import { AgentIdSchema, AgentNameSchema, EvalGateOverrideSchema } from './agents';

/*
 * Versions as things people name and choose (decision 0046): tags on versions,
 * the pin new runs use, and the diff between two versions.
 */

/**
 * A tag on a version (`stable`, `prod`, `v1.2-rc`): a letter first, then
 * letters, digits, `.`, `_` and `-`, at most 64. A tag names one version per
 * agent; putting it on another version moves it.
 */
export const VersionTagSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9._-]{0,63}$/, 'a tag starts with a letter and has letters, digits, . _ - (at most 64)');

/** Most tags one agent may carry: each is a row the versions list shows. */
export const MAX_TAGS_PER_AGENT = 100;

/** `PUT /v1/workspaces/{ws}/agents/{id}/pin` body: the version new runs use. */
export const PinAgentRequestSchema = z.strictObject({
  version: z.number().int().positive().max(2_147_483_647),
  /** An admin's override of the agent's eval gate, with the reason recorded (decision 0058). */
  overrideEvalGate: EvalGateOverrideSchema.optional(),
});
export type PinAgentRequest = z.infer<typeof PinAgentRequestSchema>;

/** One tag as the API shows it. */
export const AgentVersionTagSchema = z.strictObject({
  tag: VersionTagSchema,
  version: z.number().int().positive(),
  /** The user who set the tag last (put it on this version). */
  setBy: z.uuid(),
  setAt: z.iso.datetime(),
});
export type AgentVersionTag = z.infer<typeof AgentVersionTagSchema>;

/** `GET /v1/workspaces/{ws}/agents/{id}/tags` response, and the tag routes' answer: every tag of the agent, by name. */
export const ListAgentTagsResponseSchema = z.strictObject({
  agentId: AgentIdSchema,
  tags: z.array(AgentVersionTagSchema),
});

/** One RFC 6902 JSON Patch operation of a diff (only the three a diff needs). */
export const JsonPatchOperationSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
  z.strictObject({ op: z.literal('remove'), path: z.string() }),
  z.strictObject({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
]);
export type JsonPatchOperation = z.infer<typeof JsonPatchOperationSchema>;

/**
 * `GET /v1/workspaces/{ws}/agents/{id}/versions/{from}/diff/{to}` response:
 * what changed from one version's spec to the other's. `patch` applied to
 * `from`'s spec gives `to`'s; `changedFields` are the spec's top-level fields
 * that differ (`instructions`, `triggers`, …), for a summary.
 */
export const AgentVersionDiffResponseSchema = z.strictObject({
  agentId: AgentIdSchema,
  from: z.number().int().positive(),
  to: z.number().int().positive(),
  changedFields: z.array(z.string()),
  patch: z.array(JsonPatchOperationSchema),
  /** The two specs' hashes (`specHash`), equal exactly when nothing changed. */
  fromSpecHash: z.string(),
  toSpecHash: z.string(),
});
export type AgentVersionDiffResponse = z.infer<typeof AgentVersionDiffResponseSchema>;

/** Kinds of the tag facts, subject `{type: "agent", id}`; audit kinds, not agent changes (runs do not depend on tags). */
export const AGENT_TAG_FACT_KINDS = {
  /** A tag was put on a version (new, or moved from `previousVersion`). */
  tagged: 'agent.tagged',
  /** A tag was removed. */
  untagged: 'agent.untagged',
} as const;
export type AgentTagFactKind = (typeof AGENT_TAG_FACT_KINDS)[keyof typeof AGENT_TAG_FACT_KINDS];

/** Payload of `agent.tagged | agent.untagged`. */
export const AgentTagFactPayloadSchema = z.strictObject({
  name: AgentNameSchema,
  tag: VersionTagSchema,
  /** The version the tag names after the change (`tagged`), or named until it (`untagged`). */
  version: z.number().int().positive(),
  /** For `tagged`: the version the tag named before it moved; null when new. */
  previousVersion: z.number().int().positive().nullable().optional(),
});
export type AgentTagFactPayload = z.infer<typeof AgentTagFactPayloadSchema>;
