import { z } from 'zod';
import { AgentIdSchema, AgentSpecSchema } from './agents';
import { FactIdSchema, KindSchema, PayloadSchema, SubjectSchema } from './facts';
import { RunSchema } from './runs';
import { RunIdSchema } from './runs-api';

/*
 * Try-drive (docs/decisions/0027-try-drive.md): a draft or saved agent run
 * once in shadow. The platform's own read-only tools run live; every other
 * call is captured as a `wouldHave` and answered with SHADOW_RESULT_TEXT.
 */

/** What the model is told a captured (not executed) call returned: the same text for every call. */
export const SHADOW_RESULT_TEXT = 'shadow run: this call was not executed; it is recorded as what the agent would have done.';

/** A hand-built fact to try an agent against (never recorded): `POST /events` without its idempotency key and actors. */
export const TryFactSchema = z.strictObject({
  kind: KindSchema,
  subject: SubjectSchema,
  payload: PayloadSchema.default({}),
});
export type TryFact = z.infer<typeof TryFactSchema>;

/**
 * `POST /v1/workspaces/{ws}/agents/try` body (and the `try_agent` tool's input).
 * What runs: a draft `spec` (with `agentId`, a draft of that agent — or of a
 * new draft an earlier try returned the id of), or the saved `agentId` at
 * `version` (default: its latest). What it runs on: exactly one of a recorded
 * fact (`eventId`), a hand-built `fact`, or an `input` message.
 */
export const TryAgentRequestSchema = z
  .strictObject({
    /** The draft to run; its `enabled` is ignored. */
    spec: AgentSpecSchema.optional(),
    /** The saved agent to run, or (with `spec`) whose draft this is: the try is kept beside it. */
    agentId: AgentIdSchema.optional(),
    /** The saved version to run (not with `spec`). @defaultValue the agent's latest */
    version: z.number().int().positive().max(2_147_483_647).optional(),
    /** A recorded fact of this workspace to replay. */
    eventId: FactIdSchema.optional(),
    fact: TryFactSchema.optional(),
    /** A message the run starts with, like a manual run's. */
    input: z.string().min(1).max(100_000).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.spec === undefined && body.agentId === undefined) ctx.addIssue({ code: 'custom', message: 'give a draft spec or a saved agentId', path: ['spec'] });
    if (body.spec !== undefined && body.version !== undefined) ctx.addIssue({ code: 'custom', message: 'a version is of a saved agent: not with a draft spec', path: ['version'] });
    const triggers = [body.eventId, body.fact, body.input].filter((given) => given !== undefined).length;
    if (triggers !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of eventId, fact or input', path: ['eventId'] });
  });
export type TryAgentRequest = z.infer<typeof TryAgentRequestSchema>;

/** `POST /agents/try` response (201): the run, and the id its tries are kept under (a new draft's is new). */
export const TryAgentResponseSchema = z.strictObject({
  runId: RunIdSchema,
  /** The saved agent's id, or the draft's: `GET /agents/{agentId}/tries` lists its tries. */
  agentId: AgentIdSchema,
  /** The saved version run; null for a draft. */
  version: z.number().int().positive().nullable(),
});
export type TryAgentResponse = z.infer<typeof TryAgentResponseSchema>;

/** One call a shadow run did not execute: the tool (`<server>.<tool>`) and its arguments, in transcript order. */
export const WouldHaveSchema = z.strictObject({
  toolCallId: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** The transcript entry that recorded it. */
  seq: z.number().int().min(1),
  at: z.iso.datetime(),
});
export type WouldHave = z.infer<typeof WouldHaveSchema>;

/** `GET /v1/workspaces/{ws}/runs/{id}/would-have` response: empty for a run that is not a try. */
export const RunWouldHaveResponseSchema = z.strictObject({
  runId: RunIdSchema,
  wouldHave: z.array(WouldHaveSchema),
});

/** One try of an agent or draft: the run, the version it ran (null: a draft) and the exact spec. */
export const AgentTrySchema = z.strictObject({
  run: RunSchema,
  version: z.number().int().positive().nullable(),
  spec: AgentSpecSchema,
});
export type AgentTry = z.infer<typeof AgentTrySchema>;

/** `GET /v1/workspaces/{ws}/agents/{id}/tries` query: newest first, by run id. */
export const ListAgentTriesQuerySchema = z.strictObject({
  /** The last run id of the previous page. */
  after: RunIdSchema.optional(),
  /** Small pages: each try carries its spec. @defaultValue 20 */
  limit: z.coerce.number().int().min(1).max(50).default(20),
});
export type ListAgentTriesQuery = z.infer<typeof ListAgentTriesQuerySchema>;

/** `GET /agents/{id}/tries` response. */
export const ListAgentTriesResponseSchema = z.strictObject({
  tries: z.array(AgentTrySchema),
  nextCursor: RunIdSchema.nullable(),
});
