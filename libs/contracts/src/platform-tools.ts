import { z } from 'zod';
import { AgentIdSchema, ListAgentsQuerySchema } from './agents';
import { FactIdSchema, ListEventsQuerySchema, PostEventRequestSchema } from './facts';
import { ListRunsQuerySchema, RunIdSchema, StartRunRequestSchema } from './runs-api';
import { PostSessionMessageRequestSchema, TranscriptQuerySchema } from './agent-loop';
import { TryAgentRequestSchema } from './try-drive';
import { GetEvalToolInputSchema, RunEvalToolInputSchema, SaveAgentToolInputSchema } from './evals';
import { TryCraftedDraftToolInputSchema } from './crafting';
import { TEAM_TOOL_INPUT_SCHEMAS } from './team-tools';
import { PostPeerNoteInputSchema } from './agent-messages';
import { DecideApprovalToolInputSchema, GetApprovalToolInputSchema, ListApprovalsToolInputSchema } from './approvals';
import { CreateScheduleRequestSchema, DeleteScheduleToolInputSchema, ListSchedulesToolInputSchema } from './schedules';
import { ListTeammatesToolInputSchema, SendMessageToolInputSchema, SpawnTeammateRequestSchema, StopTeammateToolInputSchema } from './teammates';

/*
 * Inputs of the platform's own MCP tools (served by the gateway at `/mcp`).
 * Each one is the REST query or body of the same operation, with two changes:
 * numbers are JSON numbers (a tool call is JSON, not a query string, so
 * nothing is coerced), and `emit_event` takes no `actor` (the platform sets it
 * from the token).
 */

/** `list_events`: facts of the token's workspace after a `seq` cursor. */
export const ListEventsToolInputSchema = ListEventsQuerySchema.extend({
  /** The `nextCursor` of the previous page (a `seq`). @defaultValue 0 */
  after: z.number().int().min(0).default(0),
  /** @defaultValue 100 */
  limit: z.number().int().min(1).max(1000).default(100),
});
export type ListEventsToolInput = z.infer<typeof ListEventsToolInputSchema>;

/** `get_event`: one fact by id. */
export const GetEventToolInputSchema = z.strictObject({ id: FactIdSchema });
export type GetEventToolInput = z.infer<typeof GetEventToolInputSchema>;

/** `emit_event`: records a fact, like `POST /events` without `actor`. */
export const EmitEventToolInputSchema = PostEventRequestSchema.omit({ actor: true });
export type EmitEventToolInput = z.infer<typeof EmitEventToolInputSchema>;

/** `list_runs`: runs newest first, like `GET /runs`. */
export const ListRunsToolInputSchema = ListRunsQuerySchema.extend({
  /** @defaultValue 50 */
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListRunsToolInput = z.infer<typeof ListRunsToolInputSchema>;

/** `get_run`: one run by id. */
export const GetRunToolInputSchema = z.strictObject({ id: RunIdSchema });
export type GetRunToolInput = z.infer<typeof GetRunToolInputSchema>;

/** `list_agents`: live agents in creation order, like `GET /agents`. */
export const ListAgentsToolInputSchema = ListAgentsQuerySchema.extend({
  /** @defaultValue 50 */
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListAgentsToolInput = z.infer<typeof ListAgentsToolInputSchema>;

/** `get_agent`: one live agent by id, with its latest spec. */
export const GetAgentToolInputSchema = z.strictObject({ id: AgentIdSchema });
export type GetAgentToolInput = z.infer<typeof GetAgentToolInputSchema>;

/** `start_run`: a manual run of an agent's latest version, like `POST /agents/{id}/runs`. */
export const StartRunToolInputSchema = StartRunRequestSchema.extend({ agentId: AgentIdSchema });
export type StartRunToolInput = z.infer<typeof StartRunToolInputSchema>;

/** `stop_run`: stops a run, like `POST /runs/{id}/stop` (with `cascade`, default true, the runs it caused too). */
export const StopRunToolInputSchema = z.strictObject({ id: RunIdSchema, cascade: z.boolean().default(true) });
export type StopRunToolInput = z.infer<typeof StopRunToolInputSchema>;

/** `retry_run`: a new run of an ended run, like `POST /runs/{id}/retry`. */
export const RetryRunToolInputSchema = z.strictObject({ id: RunIdSchema });
export type RetryRunToolInput = z.infer<typeof RetryRunToolInputSchema>;

/** `get_transcript`: a page of a run's transcript, like `GET /runs/{id}/transcript`. */
export const GetTranscriptToolInputSchema = TranscriptQuerySchema.extend({
  runId: RunIdSchema,
  /** The `next` of the previous page. @defaultValue 0 */
  after: z.number().int().min(0).default(0),
  /** @defaultValue 100 */
  limit: z.number().int().min(1).max(500).default(100),
});
export type GetTranscriptToolInput = z.infer<typeof GetTranscriptToolInputSchema>;

/** `send_session_message`: steering, like `POST /sessions/{id}/messages`. */
export const SendSessionMessageToolInputSchema = PostSessionMessageRequestSchema.extend({ sessionId: z.uuid() });
export type SendSessionMessageToolInput = z.infer<typeof SendSessionMessageToolInputSchema>;

/** `try_agent`: a draft or saved agent run once in shadow, like `POST /agents/try`. */
export const TryAgentToolInputSchema = TryAgentRequestSchema;
export type TryAgentToolInput = z.infer<typeof TryAgentToolInputSchema>;

/** Every platform tool's input schema, by tool name (the names are part of the API). */
export const PLATFORM_TOOL_INPUT_SCHEMAS = {
  list_events: ListEventsToolInputSchema,
  get_event: GetEventToolInputSchema,
  emit_event: EmitEventToolInputSchema,
  list_runs: ListRunsToolInputSchema,
  get_run: GetRunToolInputSchema,
  list_agents: ListAgentsToolInputSchema,
  get_agent: GetAgentToolInputSchema,
  start_run: StartRunToolInputSchema,
  stop_run: StopRunToolInputSchema,
  retry_run: RetryRunToolInputSchema,
  get_transcript: GetTranscriptToolInputSchema,
  send_session_message: SendSessionMessageToolInputSchema,
  try_agent: TryAgentToolInputSchema,
  run_eval: RunEvalToolInputSchema,
  get_eval: GetEvalToolInputSchema,
  save_agent: SaveAgentToolInputSchema,
  try_crafted_draft: TryCraftedDraftToolInputSchema,
  ...TEAM_TOOL_INPUT_SCHEMAS,
  list_approvals: ListApprovalsToolInputSchema,
  get_approval: GetApprovalToolInputSchema,
  decide_approval: DecideApprovalToolInputSchema,
  send_message: SendMessageToolInputSchema,
  spawn_teammate: SpawnTeammateRequestSchema,
  list_teammates: ListTeammatesToolInputSchema,
  stop_teammate: StopTeammateToolInputSchema,
  post_peer_note: PostPeerNoteInputSchema,
  create_schedule: CreateScheduleRequestSchema,
  list_schedules: ListSchedulesToolInputSchema,
  delete_schedule: DeleteScheduleToolInputSchema,
} as const;
export type PlatformToolName = keyof typeof PLATFORM_TOOL_INPUT_SCHEMAS;

/** The platform tools' names, in the order `tools/list` shows them. */
export const PLATFORM_TOOL_NAMES = Object.keys(PLATFORM_TOOL_INPUT_SCHEMAS) as PlatformToolName[];
