import { z } from 'zod';
import { AgentNameSchema } from './agents';
import { MAX_MAILBOX_MESSAGE_CHARS } from './agent-loop';
import { TriggerSchema } from './trigger-filter';

/** The roster's facts (subject the teammate): the matcher's event bridge follows them. */
export const TEAMMATE_FACT_KINDS = { spawned: 'teammate.spawned', stopped: 'teammate.stopped' } as const;

/** Most watch entries of one teammate. */
export const MAX_TEAMMATE_WATCH = 20;
/** Most teammates of one workspace that are not stopped. */
export const MAX_ACTIVE_TEAMMATES = 200;

/** A teammate's name: how others address it (unique per workspace, the agent-name alphabet). */
export const TeammateNameSchema = AgentNameSchema;
/** A team's name (the `team` of its teammates). */
export const TeamNameSchema = z.string().min(1).max(64);

/**
 * One watch entry: a kind glob with an optional filter (an agent trigger's
 * shape), and an optional cooldown — after a fact of a kind is delivered, later
 * facts of that kind are not delivered for `cooldownMs` (per teammate and kind).
 */
export const TeammateWatchSchema = TriggerSchema.extend({
  cooldownMs: z.number().int().min(0).max(86_400_000).optional(),
});
export type TeammateWatch = z.infer<typeof TeammateWatchSchema>;

/** A teammate's status: `idle` (no turn queued or running), `working`, or `stopped` (for good). */
export const TeammateStatusSchema = z.enum(['idle', 'working', 'stopped']);
export type TeammateStatus = z.infer<typeof TeammateStatusSchema>;

/** Defaults of a teammate's memory (decision 0052): a session compacts once its history passes this estimate. */
export const DEFAULT_TEAMMATE_MEMORY = { maxContextTokens: 16_000, keepRecentTurns: 4 } as const;
/** Bounds of `memory`: a budget below this cannot hold a summary and a turn; above, no model's window. */
export const MIN_CONTEXT_TOKENS = 1_000;
export const MAX_CONTEXT_TOKENS = 1_000_000;
export const MAX_KEEP_RECENT_TURNS = 100;

/**
 * A teammate's memory (decision 0052): its turns continue one conversation;
 * once the earlier turns' messages are estimated past `maxContextTokens`
 * (four characters a token), all but the `keepRecentTurns` latest turns are
 * replaced by a summary the model writes (a `compaction` transcript entry).
 */
export const TeammateMemorySchema = z.strictObject({
  maxContextTokens: z.number().int().min(MIN_CONTEXT_TOKENS).max(MAX_CONTEXT_TOKENS).default(DEFAULT_TEAMMATE_MEMORY.maxContextTokens),
  keepRecentTurns: z.number().int().min(1).max(MAX_KEEP_RECENT_TURNS).default(DEFAULT_TEAMMATE_MEMORY.keepRecentTurns),
});
export type TeammateMemory = z.infer<typeof TeammateMemorySchema>;

/** `POST /v1/workspaces/{ws}/teammates` body (and the `spawn_teammate` tool's input). */
export const SpawnTeammateRequestSchema = z.strictObject({
  name: TeammateNameSchema,
  agentId: z.uuid(),
  /** Facts the matcher delivers to its mailbox as event messages (each wakes it when idle): kind globs, optional filter and cooldown. */
  watch: z.array(TeammateWatchSchema).max(MAX_TEAMMATE_WATCH).default([]),
  team: TeamNameSchema.optional(),
  /** Compaction of its conversation; absent: DEFAULT_TEAMMATE_MEMORY. */
  memory: TeammateMemorySchema.optional(),
});
export type SpawnTeammateRequest = z.infer<typeof SpawnTeammateRequestSchema>;

/** A teammate as the API shows it. */
export const TeammateSchema = z.strictObject({
  id: z.uuid(),
  name: TeammateNameSchema,
  agentId: z.uuid(),
  /** The long-lived session: its mailbox, and the lane `session:<id>` its turns run in one at a time. */
  sessionId: z.uuid(),
  status: TeammateStatusSchema,
  watch: z.array(TeammateWatchSchema),
  team: z.string().nullable(),
  /** Its memory settings, defaults filled in (decision 0052). */
  memory: TeammateMemorySchema,
  /** The latest turn (a run), if any. */
  lastTurn: z.strictObject({ runId: z.uuid(), status: z.string(), queuedAt: z.iso.datetime() }).nullable(),
  /** Turns taken and their summed cost. */
  turns: z.number().int().min(0),
  spendUsd: z.number().min(0),
  createdAt: z.iso.datetime(),
  stoppedAt: z.iso.datetime().nullable(),
});
export type Teammate = z.infer<typeof TeammateSchema>;
export const ListTeammatesResponseSchema = z.strictObject({ teammates: z.array(TeammateSchema) });

/** `POST /v1/workspaces/{ws}/teammates/{name}/messages` body: a person's message. */
export const PostTeammateMessageRequestSchema = z.strictObject({
  content: z.string().min(1).max(MAX_MAILBOX_MESSAGE_CHARS),
});
/** What a delivery did: the envelope's id, and whether it woke an idle teammate (a new turn). */
export const PostTeammateMessageResponseSchema = z.strictObject({ id: z.uuid(), woke: z.boolean() });
export type PostTeammateMessageResponse = z.infer<typeof PostTeammateMessageResponseSchema>;

/** `message.sent` payload: ids and sizes, never the content. */
export const MessageSentPayloadSchema = z.strictObject({
  messageId: z.uuid(),
  sessionId: z.uuid(),
  teammate: z.string().optional(),
  from: z.enum(['user', 'agent', 'event', 'system']),
  senderId: z.string(),
  chars: z.number().int().min(0),
  woke: z.boolean(),
});
export type MessageSentPayload = z.infer<typeof MessageSentPayloadSchema>;

/** Largest `send_message` content (a teammate's note, not a document). */
export const MAX_SEND_MESSAGE_CHARS = 8_000;
/** Most `send_message` deliveries one run makes (each recipient counts). */
export const MAX_MESSAGES_PER_RUN = 50;
/** Most recipients of one `send_message` (no unbounded broadcast). */
export const MAX_MESSAGE_RECIPIENTS = 5;

/** `send_message {to: "team:<name>"}` addresses every live teammate of the team (decision 0059). */
export const TEAM_ADDRESS_PREFIX = 'team:';
/** `send_message {to: "parent"}`: the run that delegated to the caller (decision 0059). */
export const PARENT_ADDRESS = 'parent';
/** One `to`: a teammate name, session or agent id, `team:<name>`, a delegated child run's id, or `parent`. */
const RecipientSchema = z.string().min(1).max(TEAM_ADDRESS_PREFIX.length + 64);

/**
 * `send_message` input: `to` is a teammate name, an agent id (its teammate) or a session id (a teammate's),
 * `team:<name>` (its live members), a child run's id (a run the caller delegated) or `parent` — of this workspace.
 */
export const SendMessageToolInputSchema = z.strictObject({
  to: z.union([RecipientSchema, z.array(RecipientSchema).min(1).max(MAX_MESSAGE_RECIPIENTS)]),
  content: z.string().min(1).max(MAX_SEND_MESSAGE_CHARS),
});
export type SendMessageToolInput = z.infer<typeof SendMessageToolInputSchema>;

/** `list_teammates` input: none. */
export const ListTeammatesToolInputSchema = z.strictObject({});

/** `stop_teammate` input: the teammate's name, like `POST /teammates/{name}/stop`. */
export const StopTeammateToolInputSchema = z.strictObject({ name: TeammateNameSchema });
export type StopTeammateToolInput = z.infer<typeof StopTeammateToolInputSchema>;

/**
 * Why `send_message` refused a recipient (the `reason` of MESSAGE_RECIPIENT_UNREACHABLE):
 * `ended` names a delegated run (child or parent) that has ended, with its `finalState`.
 */
export const MESSAGE_UNREACHABLE_REASONS = ['unknown', 'stopped', 'self', 'ambiguous', 'team_empty', 'too_many', 'ended'] as const;
export type MessageUnreachableReason = (typeof MESSAGE_UNREACHABLE_REASONS)[number];

/** A team's status: `working` (a member's turn queued or running), `idle` (live members, none working), `stopped` (every member stopped). */
export const TeamStatusSchema = z.enum(['working', 'idle', 'stopped']);
/** A team as `GET /teams` lists it: the teammates sharing a `team`, counted. */
export const TeamSummarySchema = z.strictObject({
  name: TeamNameSchema,
  status: TeamStatusSchema,
  members: z.number().int().min(0),
  live: z.number().int().min(0),
  working: z.number().int().min(0),
});
export type TeamSummary = z.infer<typeof TeamSummarySchema>;
export const ListTeamsResponseSchema = z.strictObject({ teams: z.array(TeamSummarySchema) });
/** `GET /teams/{name}`: the team and its members (stopped ones too), by name. */
export const TeamDetailSchema = TeamSummarySchema.extend({ teammates: z.array(TeammateSchema) });
export type TeamDetail = z.infer<typeof TeamDetailSchema>;
