import { z } from 'zod';
import { SecretNameSchema } from './agent-loop';
import { ApprovalDecisionSchema, ApprovalIdSchema, MAX_APPROVAL_NOTE_CHARS } from './approvals';
import { FactIdSchema, FactSchema, KindGlobSchema, WorkspaceSlugSchema } from './facts';
import { TriggerFilterSchema } from './trigger-filter';

/*
 * Notifications (decision 0030): a workspace's Mattermost connection and the
 * rules that route its facts to channels, the jobs of the `notifications`
 * queue, and the shapes Mattermost sends back (button callbacks, slash
 * commands).
 */

/** The BullMQ queue the notifier delivers through (and the dashboard shows). */
export const NOTIFICATIONS_QUEUE = 'notifications';
/** Most rules of a workspace. */
export const MAX_NOTIFICATION_RULES = 50;
/** Longest message template, in characters. */
export const MAX_NOTIFICATION_TEMPLATE_CHARS = 4_000;
/** How long a link code issued by the API works (10 minutes). */
export const MATTERMOST_LINK_CODE_TTL_MS = 10 * 60_000;

/** A Mattermost channel id (26 lowercase letters and digits). */
export const MattermostChannelIdSchema = z.string().regex(/^[a-z0-9]{26}$/, 'a Mattermost channel id is 26 lowercase letters and digits');

/**
 * How the workspace reaches Mattermost: a bot account (posts with buttons,
 * updated in place) or an incoming webhook (posts only). Credentials are
 * workspace secrets, named here, never stored in the settings.
 */
export const NotificationConnectionSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bot'),
    /** The Mattermost server's URL (`https://chat.example.com`); checked like every outbound URL. */
    serverUrl: z.url({ protocol: /^https?$/ }).max(2_000),
    /** The workspace secret holding the bot's access token. */
    tokenSecret: SecretNameSchema,
    /** The workspace secret holding the `/switchyard` slash command's token; without it slash commands are refused. */
    commandTokenSecret: SecretNameSchema.optional(),
  }),
  z.strictObject({
    type: z.literal('webhook'),
    /** The workspace secret holding the incoming webhook's URL (it is the credential). */
    webhookUrlSecret: SecretNameSchema,
  }),
]);
export type NotificationConnection = z.infer<typeof NotificationConnectionSchema>;

/** One rule: facts whose kind matches the glob and, if given, the trigger filter, posted to a channel. */
export const NotificationRuleSchema = z.strictObject({
  /** Stable id of the rule within the workspace: deliveries are idempotent per (fact, rule id). */
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'rule ids are lowercase letters, digits, _ and -'),
  kind: KindGlobSchema,
  /** The trigger filter language of agents (decision 0010). */
  filter: TriggerFilterSchema.optional(),
  /** Channel id (bot) or channel name override (webhook); absent: the settings' defaultChannel. */
  channel: z.string().min(1).max(64).optional(),
  /**
   * The message, with `{{path}}` placeholders in the filter's path language
   * (`{{kind}}`, `{{subject.id}}`, `{{payload.reason}}`, `{{workspace}}`).
   * Absent: the platform's text for the fact's kind.
   */
  template: z.string().min(1).max(MAX_NOTIFICATION_TEMPLATE_CHARS).optional(),
  /** @defaultValue true */
  enabled: z.boolean().default(true),
});
export type NotificationRule = z.infer<typeof NotificationRuleSchema>;

/** `PUT /v1/workspaces/{ws}/settings/notifications` body and `GET` answer. */
export const NotificationSettingsSchema = z
  .strictObject({
    /** Null: notifications are off. */
    connection: NotificationConnectionSchema.nullable(),
    /** Where rules without a channel post. */
    defaultChannel: z.string().min(1).max(64).nullable().default(null),
    rules: z.array(NotificationRuleSchema).max(MAX_NOTIFICATION_RULES),
  })
  .superRefine((settings, ctx) => {
    const seen = new Set<string>();
    settings.rules.forEach((rule, i) => {
      if (seen.has(rule.id)) ctx.addIssue({ code: 'custom', message: `duplicate rule id ${rule.id}`, path: ['rules', i, 'id'] });
      seen.add(rule.id);
      if (!rule.channel && !settings.defaultChannel && settings.connection?.type === 'bot') {
        ctx.addIssue({ code: 'custom', message: 'a rule needs a channel when there is no defaultChannel', path: ['rules', i, 'channel'] });
      }
      if (settings.connection?.type === 'bot') {
        const channel = rule.channel ?? settings.defaultChannel;
        if (channel && !MattermostChannelIdSchema.safeParse(channel).success) {
          ctx.addIssue({ code: 'custom', message: 'a bot posts to channel ids (26 lowercase letters and digits)', path: rule.channel ? ['rules', i, 'channel'] : ['defaultChannel'] });
        }
      }
    });
  });
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;

/** The rules a workspace starts with: what a person would want to hear about. */
export const DEFAULT_NOTIFICATION_RULES: readonly NotificationRule[] = [
  { id: 'approvals-requested', kind: 'approval.requested', enabled: true },
  { id: 'runs-failed', kind: 'agent.run.failed', enabled: true },
  { id: 'runs-dropped', kind: 'agent.run.dropped', enabled: true },
  { id: 'kill-switch', kind: 'workspace.settings_changed', enabled: true },
];

/** `POST …/settings/notifications/test` body: where to post (absent: the default channel). */
export const NotificationTestRequestSchema = z.strictObject({ channel: z.string().min(1).max(64).optional() });

/** `POST …/settings/notifications/test` answer: what Mattermost said. */
export const NotificationTestResponseSchema = z.strictObject({
  ok: z.boolean(),
  /** Mattermost's HTTP status, or null when it could not be reached. */
  status: z.number().int().nullable(),
  /** The created post's id (bot connections). */
  postId: z.string().nullable(),
  /** Mattermost's message, or why it could not be reached. */
  message: z.string(),
});
export type NotificationTestResponse = z.infer<typeof NotificationTestResponseSchema>;

/** `POST /v1/workspaces/{ws}/integrations/mattermost/link-codes` answer: a one-time code for `/switchyard link <code>`. */
export const MattermostLinkCodeResponseSchema = z.strictObject({ code: z.string(), expiresAt: z.iso.datetime() });

/**
 * A delivery to make: one fact through one rule (`post`), or the post a rule
 * made for an earlier fact (`postFactId`) updated from this one (`update`,
 * an approval decided or expired). The fact travels with the job.
 */
export const NotificationJobSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('post'), workspaceId: z.uuid(), fact: FactSchema, ruleId: z.string() }),
  z.strictObject({ type: z.literal('update'), workspaceId: z.uuid(), fact: FactSchema, ruleId: z.string(), postFactId: FactIdSchema }),
]);
export type NotificationJob = z.infer<typeof NotificationJobSchema>;

/**
 * What a button's signed context carries; `sig` is an HMAC over the rest (see
 * signActionContext in libs/core). Two kinds (decision 0043):
 * - a channel post's button (`url`, no `userId`): anyone in the channel may
 *   click it; it decides nothing, it asks the clicking user to confirm;
 * - a confirmation (`userId`, `memberId`, `nonce`): posted to the clicking
 *   user alone, valid once, only for that Mattermost user linked to that member.
 * A context without `url` and `userId` is a button posted before decision 0043.
 */
export const MattermostActionContextSchema = z.strictObject({
  approvalId: ApprovalIdSchema,
  workspace: WorkspaceSlugSchema,
  decision: ApprovalDecisionSchema,
  /** Unix milliseconds after which the button is refused (the approval's expiry; a confirmation's is sooner). */
  exp: z.number().int().positive(),
  /** The URL Mattermost calls for the button (NOTIFIER_ACTION_URL): where the confirmation's buttons call too. */
  url: z.url({ protocol: /^https?$/ }).max(2_000).optional(),
  /** A confirmation's: the Mattermost user it was issued for (the one who clicked the channel's button). */
  userId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
  /** A confirmation's: the member that Mattermost user was linked to when it was issued; the decision is recorded for them. */
  memberId: z.uuid().optional(),
  /** A confirmation's: single use (a replay is refused). */
  nonce: z.string().regex(/^[A-Za-z0-9_-]{22}$/).optional(),
  sig: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
export type MattermostActionContext = z.infer<typeof MattermostActionContextSchema>;

/** The body Mattermost POSTs to a button's integration URL (it signs nothing itself). */
export const MattermostActionRequestSchema = z.object({
  user_id: z.string().min(1).max(64),
  user_name: z.string().max(128).optional(),
  post_id: z.string().max(64).optional(),
  channel_id: z.string().max(64).optional(),
  team_id: z.string().max(64).optional(),
  context: z.unknown(),
});
export type MattermostActionRequest = z.infer<typeof MattermostActionRequestSchema>;

/** The form Mattermost POSTs for a slash command (fields we read; it sends more). */
export const MattermostSlashCommandSchema = z.object({
  token: z.string().min(1).max(128),
  user_id: z.string().min(1).max(64),
  user_name: z.string().max(128).optional(),
  channel_id: z.string().max(64).optional(),
  team_id: z.string().max(64).optional(),
  command: z.string().max(64).optional(),
  text: z.string().max(MAX_APPROVAL_NOTE_CHARS + 200).default(''),
});
export type MattermostSlashCommand = z.infer<typeof MattermostSlashCommandSchema>;
