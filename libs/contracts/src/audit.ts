import { z } from 'zod';
import { SecretNameSchema } from './agent-loop';
import { RoleSchema } from './auth';
import { ActorSchema, FactSchema, KindGlobSchema } from './facts';
import { NotificationConnectionSchema } from './notifications';

/*
 * The audit trail (decision 0040): the facts that record a governance change —
 * who may act (tokens, members), with which credentials (secrets), where the
 * platform speaks (notifications, Mattermost links), what agents may do
 * (agents, collaborator rules) and whether they run (the kill switch). Each
 * is recorded in the transaction of its change, its `actor` the person (or
 * agent) who made it, and never carries a secret value.
 */

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

/** Payload of `secret.set` and `secret.deleted`: the name only, never the value. */
export const SecretFactPayloadSchema = z.strictObject({ name: SecretNameSchema });

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
