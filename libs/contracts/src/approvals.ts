import { z } from 'zod';

/*
 * Approvals: a headless run's permission request, parked until a person (or
 * the expiry) decides it (decision 0025). The records are the approvals
 * service's; these are their API shapes, limits and fact payloads (this file
 * imports nothing of the contracts, so agents.ts and runs.ts can use it).
 */

/** How policy classes a tool (docs/tool-classes.md): what a permission mode asks about. */
export const ToolClassSchema = z.enum([
  /** The platform's own read-only tools: never asked about. */
  'read',
  /** May change something outside the run. */
  'write',
  /** Destructive or governance (decisions, settings, tokens, secrets, deletes), an external tool not marked `destructiveHint: false`, or an operator's guarded glob. */
  'guarded',
]);
export type ToolClass = z.infer<typeof ToolClassSchema>;

/** What an approval asks for: one tool call, or (plan mode) the run's plan. */
export const ApprovalKindSchema = z.enum(['tool', 'plan']);
export type ApprovalKind = z.infer<typeof ApprovalKindSchema>;

/** `pending` until decided; `expired` counts as denied. */
export const ApprovalStatusSchema = z.enum(['pending', 'approved', 'denied', 'expired']);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

/** A person's decision. */
export const ApprovalDecisionSchema = z.enum(['approve', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** An approval's id (a UUID). */
export const ApprovalIdSchema = z.uuid();

/** Default time a person has to decide (7 days); `approvals.timeoutMs` of an agent overrides it. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 7 * 24 * 3_600_000;
/** Bounds of an agent's `approvals.timeoutMs`: 1 second to 30 days. */
export const MIN_APPROVAL_TIMEOUT_MS = 1_000;
export const MAX_APPROVAL_TIMEOUT_MS = 30 * 24 * 3_600_000;
/** The arguments preview is cut to this many characters of JSON (secrets redacted first). */
export const MAX_APPROVAL_PREVIEW_CHARS = 4_000;
/** Most characters of a decision's note, and of the model's stated reason. */
export const MAX_APPROVAL_NOTE_CHARS = 2_000;

/** An agent's approval settings (`spec.approvals`). */
export const AgentApprovalsSchema = z.strictObject({
  /** How long a person has to decide before the approval expires (denied by `system`). @defaultValue 604800000 (7 days) */
  timeoutMs: z.number().int().min(MIN_APPROVAL_TIMEOUT_MS).max(MAX_APPROVAL_TIMEOUT_MS).default(DEFAULT_APPROVAL_TIMEOUT_MS),
  /** The permission mode a `plan` run continues in once its plan is approved. @defaultValue "default" */
  afterPlan: z.enum(['default', 'auto']).default('default'),
});
export type AgentApprovals = z.infer<typeof AgentApprovalsSchema>;

/** Who decided: a member of the workspace, or the platform (expiry, a stopped run, `approvals: "deny"`). */
export const ApprovalDeciderSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('member'),
    userId: z.uuid(),
    tokenId: z.uuid().optional(),
    /** The person's display name when they decided (decision 0042); absent on decisions recorded before names were. */
    name: z.string().max(256).optional(),
  }),
  z.strictObject({ type: z.literal('system'), reason: z.enum(['expired', 'run_stopped', 'approvals_denied']) }),
]);
export type ApprovalDecider = z.infer<typeof ApprovalDeciderSchema>;

/** The tool an approval is about (kind `tool`); for kind `plan`, the plan itself. */
export const ApprovalToolSchema = z.strictObject({
  /** The MCP server (`platform` for the platform's own tools). */
  server: z.string(),
  /** The tool's name as rules and transcripts write it (`server.tool`). */
  name: z.string(),
  class: ToolClassSchema,
  /** Why it has that class and why this mode asks (one sentence). */
  why: z.string(),
});

/** An approval as the API shows it. */
export const ApprovalSchema = z.strictObject({
  id: ApprovalIdSchema,
  workspace: z.string(),
  kind: ApprovalKindSchema,
  runId: z.uuid(),
  agentId: z.uuid(),
  agentVersion: z.number().int().positive(),
  /** The model's id of the parked tool call (unique per run). */
  toolCallId: z.string(),
  /** Null for kind `plan`. */
  tool: ApprovalToolSchema.nullable(),
  /** The call's arguments as JSON, secrets redacted, cut to MAX_APPROVAL_PREVIEW_CHARS; for `plan`, the plan. */
  argumentsPreview: z.string(),
  /** True when the preview was cut. */
  truncated: z.boolean(),
  /** What the model said it is doing (its message's text with the call), if anything. */
  reason: z.string().nullable(),
  status: ApprovalStatusSchema,
  requestedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  decidedBy: ApprovalDeciderSchema.nullable(),
  note: z.string().nullable(),
  decidedAt: z.iso.datetime().nullable(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** `GET /v1/workspaces/{ws}/approvals` query: oldest first, paged by `after` (an approval id's cursor). */
export const ListApprovalsQuerySchema = z.strictObject({
  status: ApprovalStatusSchema.optional(),
  runId: z.uuid().optional(),
  agentId: z.uuid().optional(),
  /** The `nextCursor` of the previous page. */
  after: z.string().max(200).optional(),
  /** @defaultValue 50 */
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListApprovalsQuery = z.infer<typeof ListApprovalsQuerySchema>;

export const ListApprovalsResponseSchema = z.strictObject({
  approvals: z.array(ApprovalSchema),
  /** Pass as `after` for the next page; null at the end. */
  nextCursor: z.string().nullable(),
});

/** `POST /approvals/{id}/decision` body. */
export const DecideApprovalRequestSchema = z.strictObject({
  decision: ApprovalDecisionSchema,
  note: z.string().max(MAX_APPROVAL_NOTE_CHARS).optional(),
});
export type DecideApprovalRequest = z.infer<typeof DecideApprovalRequestSchema>;

/** The platform's approval facts. */
export const APPROVAL_FACT_KINDS = {
  requested: 'approval.requested',
  decided: 'approval.decided',
  expired: 'approval.expired',
} as const;

/** Payload of every `approval.*` fact (subject `approval:<id>`): the approval after the change. */
export const ApprovalFactPayloadSchema = ApprovalSchema.omit({ workspace: true });
export type ApprovalFactPayload = z.infer<typeof ApprovalFactPayloadSchema>;

/** Workspace setting `approvals`: `deny` fails every ask closed at once (recorded, visible), and the run goes on. */
export const ApprovalsSettingSchema = z.enum(['enabled', 'deny']);
export type ApprovalsSetting = z.infer<typeof ApprovalsSettingSchema>;

/** `list_approvals` platform tool: like `GET /approvals`, numbers as JSON numbers. */
export const ListApprovalsToolInputSchema = ListApprovalsQuerySchema.extend({
  limit: z.number().int().min(1).max(200).default(50),
});
/** `get_approval` platform tool. */
export const GetApprovalToolInputSchema = z.strictObject({ id: ApprovalIdSchema });
/** `decide_approval` platform tool (a person's token only). */
export const DecideApprovalToolInputSchema = DecideApprovalRequestSchema.extend({ id: ApprovalIdSchema });
/** `propose_plan` platform tool (plan mode): parks an approval of kind `plan`. */
export const ProposePlanToolInputSchema = z.strictObject({ plan: z.string().min(1).max(20_000) });

/** A job of the BullMQ queue `approval-expiry` (job id = the approval id, delayed until it expires). */
export const ApprovalExpiryJobSchema = z.strictObject({
  schemaVersion: z.literal(1),
  approvalId: ApprovalIdSchema,
});
export type ApprovalExpiryJob = z.infer<typeof ApprovalExpiryJobSchema>;
