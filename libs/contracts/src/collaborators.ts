import { z } from 'zod';
import { AgentIdSchema, AgentNameSchema } from './agents';

/** A collaborator rule's state as the API shows it: `none` when the owner never wrote one. */
export const CollaboratorRuleSchema = z.enum(['enabled', 'disabled', 'none']);
export type CollaboratorRule = z.infer<typeof CollaboratorRuleSchema>;

/** `PUT /v1/workspaces/{ws}/agents/{id}/collaborators/{otherId}` body. */
export const PutCollaboratorRequestSchema = z.strictObject({ enabled: z.boolean() });
export type PutCollaboratorRequest = z.infer<typeof PutCollaboratorRequestSchema>;

/** One other agent of the workspace, with whether the agent may delegate to it. */
export const CollaboratorSchema = z.strictObject({
  agentId: AgentIdSchema,
  name: z.string(),
  /** The other agent's own flag: a disabled agent cannot take a delegation whatever the rule. */
  agentEnabled: z.boolean(),
  rule: CollaboratorRuleSchema,
});
export type Collaborator = z.infer<typeof CollaboratorSchema>;

/** `GET …/agents/{id}/collaborators` query: the workspace's other live agents in creation order. */
export const ListCollaboratorsQuerySchema = z.strictObject({
  after: AgentIdSchema.optional(),
  /** @defaultValue 100 */
  limit: z.coerce.number().int().min(1).max(200).default(100),
});
export type ListCollaboratorsQuery = z.infer<typeof ListCollaboratorsQuerySchema>;

export const ListCollaboratorsResponseSchema = z.strictObject({
  agentId: AgentIdSchema,
  collaborators: z.array(CollaboratorSchema),
  nextCursor: AgentIdSchema.nullable(),
});

/** Kinds of the collaborator rules' facts, subject `{type: "agent", id}` (the delegating agent). */
export const COLLABORATOR_FACT_KINDS = {
  /** A rule was written, changed or removed; `enabled` null when removed. */
  changed: 'agent.collaborator_changed',
} as const;

/** Payload of `agent.collaborator_changed`: the rule after the change. */
export const CollaboratorChangedPayloadSchema = z.strictObject({
  collaboratorId: AgentIdSchema,
  collaboratorName: z.string(),
  /** null: the rule was removed (delegation is not allowed, as with no rule). */
  enabled: z.boolean().nullable(),
});
export type CollaboratorChangedPayload = z.infer<typeof CollaboratorChangedPayloadSchema>;

/** Longest delegation objective and context. */
export const MAX_DELEGATION_OBJECTIVE_CHARS = 10_000;
export const MAX_DELEGATION_CONTEXT_CHARS = 20_000;

/** `delegate_to_agent`'s input: the target agent by id or name, what to do, and what it should know. */
export const DelegateToAgentToolInputSchema = z.strictObject({
  target: z.union([AgentIdSchema, AgentNameSchema]),
  objective: z.string().trim().min(1).max(MAX_DELEGATION_OBJECTIVE_CHARS),
  context: z.string().max(MAX_DELEGATION_CONTEXT_CHARS).optional(),
});
export type DelegateToAgentToolInput = z.infer<typeof DelegateToAgentToolInputSchema>;

/**
 * Why a delegation was refused (the `reason` of DELEGATION_REFUSED), so the
 * model can correct itself with the roster the refusal lists.
 */
export const DELEGATION_REFUSALS = {
  /** No rule lets the agent delegate to the target (or the rule was removed). */
  notAllowed: 'collaborator_not_allowed',
  /** A rule names the target, but it is disabled. */
  disabled: 'collaborator_disabled',
  /** No live agent of the workspace has that id or name (deleted, another workspace's, never existed). */
  targetNotFound: 'target_not_found',
  /** The target agent itself is disabled. */
  targetDisabled: 'target_disabled',
  /** The calling run has started as many children as its agent's `budget.maxChildren` allows (decision 0059). */
  fanOutCap: 'fan_out_cap',
} as const;

/** Most children one run delegates to when its agent's `budget.maxChildren` is unset. */
export const DEFAULT_MAX_CHILDREN = 5;
export type DelegationRefusal = (typeof DELEGATION_REFUSALS)[keyof typeof DELEGATION_REFUSALS];

/** The `details` of DELEGATION_REFUSED. */
export const DelegationRefusedDetailsSchema = z.strictObject({
  reason: z.enum(Object.values(DELEGATION_REFUSALS) as [DelegationRefusal, ...DelegationRefusal[]]),
  target: z.string(),
  /** The agents this one may delegate to now: itself and its enabled collaborators that are enabled. */
  roster: z.array(z.strictObject({ agentId: AgentIdSchema, name: z.string(), self: z.boolean() })),
  /** With `fan_out_cap`: the cap in force. */
  max: z.number().int().min(0).optional(),
});
export type DelegationRefusedDetails = z.infer<typeof DelegationRefusedDetailsSchema>;

/** Kinds of the delegation facts, subject `{type: "run", id}` (the parent run). */
export const DELEGATION_FACT_KINDS = {
  /** A delegated child run ended and its result went to the parent's mailbox (or, the parent having ended, is recorded here). */
  returned: 'agent.delegation.returned',
} as const;

/** Payload of `agent.delegation.returned`. */
export const DelegationReturnedPayloadSchema = z.strictObject({
  childRunId: z.uuid(),
  childAgentId: z.uuid(),
  status: z.enum(['completed', 'failed', 'cancelled']),
  /** The child's summary (completed) or its error's message, bounded. */
  result: z.string().max(10_000),
  /** `delivered`: in the parent's mailbox; `parent_ended`: the parent's session was closed, this fact is the record. */
  delivery: z.enum(['delivered', 'parent_ended']),
});
export type DelegationReturnedPayload = z.infer<typeof DelegationReturnedPayloadSchema>;
