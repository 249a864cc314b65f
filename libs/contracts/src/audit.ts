import { z } from 'zod';
import { SecretNameSchema } from './agent-loop';
import { AGENT_FACT_KINDS } from './agents';
import { RoleSchema } from './auth';
import { COLLABORATOR_FACT_KINDS } from './collaborators';
import { ActorSchema, FactSchema, KindGlobSchema } from './facts';
import { NotificationConnectionSchema } from './notifications';
import { WORKSPACE_FACT_KINDS } from './runs-api';

/*
 * The audit trail (decision 0036): the facts that record a governance change —
 * who may act (tokens, members), with which credentials (secrets), where the
 * platform speaks (notifications, Mattermost links), what agents may do
 * (agents, collaborator rules) and whether they run (the kill switch). Each
 * is recorded in the transaction of its change, its `actor` the person (or
 * agent) who made it, and never carries a secret value.
 */

/** Kinds of the API tokens' facts, subject `{type: "token", id}`. */
export const TOKEN_FACT_KINDS = { created: 'token.created', revoked: 'token.revoked' } as const;
export type TokenFactKind = (typeof TOKEN_FACT_KINDS)[keyof typeof TOKEN_FACT_KINDS];

/** Payload of `token.created` and `token.revoked`: the token as listed, never its secret or hash. */
export const TokenFactPayloadSchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  role: RoleSchema,
  /** The visible start of the secret (`sy_` and 6 characters), as `GET /tokens` shows it. */
  prefix: z.string(),
  /** When it stops working; null: never. */
  expiresAt: z.iso.datetime().nullable(),
  /** The person the token acts as. */
  userId: z.uuid(),
});
export type TokenFactPayload = z.infer<typeof TokenFactPayloadSchema>;

/** Kinds of the workspace secrets' facts, subject `{type: "secret", id: <name>}`. */
export const SECRET_FACT_KINDS = { set: 'secret.set', deleted: 'secret.deleted' } as const;
export type SecretFactKind = (typeof SECRET_FACT_KINDS)[keyof typeof SECRET_FACT_KINDS];

/** Payload of `secret.set` and `secret.deleted`: the name only, never the value. */
export const SecretFactPayloadSchema = z.strictObject({ name: SecretNameSchema });

/** Kinds of the notification settings' facts, subject `{type: "workspace", id}`. */
export const NOTIFICATION_FACT_KINDS = { settingsChanged: 'notifications.settings_changed' } as const;

/** A part of the notification settings that a save may change. */
export const NotificationSettingNameSchema = z.enum(['connection', 'defaultChannel', 'rules']);

/**
 * Payload of `notifications.settings_changed` (every save, as for
 * `workspace.settings_changed`): what changed, the connection and default
 * channel after the save (credentials are secret names), and the rules by id
 * — the rules themselves may be larger than a fact.
 */
export const NotificationSettingsChangedPayloadSchema = z.strictObject({
  /** The parts whose value differs from before the save; empty when the save changed nothing. */
  changed: z.array(NotificationSettingNameSchema),
  connection: NotificationConnectionSchema.nullable(),
  defaultChannel: z.string().nullable(),
  rules: z.strictObject({
    /** Ids of rules that are new, gone, or whose content changed. */
    added: z.array(z.string()),
    removed: z.array(z.string()),
    changed: z.array(z.string()),
    /** How many rules there are after the save. */
    count: z.number().int().min(0),
  }),
});
export type NotificationSettingsChangedPayload = z.infer<typeof NotificationSettingsChangedPayloadSchema>;

/** Kinds of the Mattermost links' facts, subject `{type: "mattermost_user", id: <Mattermost user id>}`. */
export const MATTERMOST_FACT_KINDS = { linked: 'mattermost.linked', unlinked: 'mattermost.unlinked' } as const;

/** Payload of `mattermost.linked` and `mattermost.unlinked`. */
export const MattermostLinkPayloadSchema = z.strictObject({
  mattermostUserId: z.string(),
  /** The member the Mattermost user acts as (linked: from now on; unlinked: until now). */
  userId: z.uuid(),
  /** The most the link acts with (the role of the token that asked for the code). */
  role: RoleSchema,
  /** `mattermost.linked` only: the member this Mattermost user was linked to before, replaced; null when none. */
  previousUserId: z.uuid().nullable().optional(),
});
export type MattermostLinkPayload = z.infer<typeof MattermostLinkPayloadSchema>;

/**
 * Every kind the audit trail shows (`GET /audit`, the UI's audit page): the
 * governance changes. `member.*` are the people's facts (invited, joined, a
 * role changed, removed). Run, approval, task and message facts are work, not
 * governance, and are read through `/events`.
 */
export const AUDIT_FACT_KINDS: readonly string[] = [
  ...Object.values(TOKEN_FACT_KINDS),
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  ...Object.values(SECRET_FACT_KINDS),
  ...Object.values(NOTIFICATION_FACT_KINDS),
  ...Object.values(MATTERMOST_FACT_KINDS),
  WORKSPACE_FACT_KINDS.settingsChanged,
  ...Object.values(COLLABORATOR_FACT_KINDS),
  ...Object.values(AGENT_FACT_KINDS),
];

/** Most entries `GET /audit` answers at once. */
export const MAX_AUDIT_PAGE = 200;

/** `GET /v1/workspaces/{ws}/audit` query: newest first, before a seq, of one actor and kinds matching a glob. */
export const AuditQuerySchema = z.strictObject({
  /** Only what this person (user id) or agent (agent id) did. */
  actor: z.uuid().optional(),
  /** Only audit kinds matching this glob (`token.*`, `member.**`); a glob matching no audit kind reads nothing. */
  kind: KindGlobSchema.optional(),
  /** Only entries older than this seq: the `nextBefore` of the previous page. */
  before: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  /** @defaultValue 50 */
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE).default(50),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/**
 * `GET /audit` answer: facts of the audit kinds, newest first. An actor
 * recorded without a name (facts older than names on actors) is answered
 * with the person's or agent's name now.
 */
export const AuditPageSchema = z.strictObject({
  entries: z.array(FactSchema),
  /** Pass as `before` for the next (older) page; null when this page is the last. */
  nextBefore: z.number().int().positive().nullable(),
});
export type AuditPage = z.infer<typeof AuditPageSchema>;

/** `GET /audit/actors` answer: everyone who appears in the trail, with their name now (the person filter). */
export const AuditActorsResponseSchema = z.strictObject({
  actors: z.array(ActorSchema.extend({ name: z.string().nullable() })),
});
export type AuditActorsResponse = z.infer<typeof AuditActorsResponseSchema>;
