/*
 * The audit trail's fact kinds (decision 0040), in a module that imports
 * nothing, so that the fact schemas can refuse them from producers without an
 * import cycle. The kinds of other families are spelled here as literals; a
 * test checks them against those families' constants.
 */

/** Kinds of the API tokens' facts, subject `{type: "token", id}`. */
export const TOKEN_FACT_KINDS = { created: 'token.created', revoked: 'token.revoked' } as const;
export type TokenFactKind = (typeof TOKEN_FACT_KINDS)[keyof typeof TOKEN_FACT_KINDS];

/** Kinds of the people's facts (decision 0042), subject `{type: "member", id: <user id>}` (`invited`: `{type: "invitation", id}`). */
export const MEMBER_FACT_KINDS = { invited: 'member.invited', joined: 'member.joined', roleChanged: 'member.role_changed', removed: 'member.removed' } as const;
export type MemberFactKind = (typeof MEMBER_FACT_KINDS)[keyof typeof MEMBER_FACT_KINDS];

/** Kinds of the workspace secrets' facts, subject `{type: "secret", id: <name>}`. */
export const SECRET_FACT_KINDS = { set: 'secret.set', deleted: 'secret.deleted' } as const;
export type SecretFactKind = (typeof SECRET_FACT_KINDS)[keyof typeof SECRET_FACT_KINDS];

/** Kinds of the notification settings' facts, subject `{type: "workspace", id}`. */
export const NOTIFICATION_FACT_KINDS = { settingsChanged: 'notifications.settings_changed' } as const;

/** Kinds of the Mattermost links' facts, subject `{type: "mattermost_user", id: <Mattermost user id>}`. */
export const MATTERMOST_FACT_KINDS = { linked: 'mattermost.linked', unlinked: 'mattermost.unlinked' } as const;
export type MattermostFactKind = (typeof MATTERMOST_FACT_KINDS)[keyof typeof MATTERMOST_FACT_KINDS];

/**
 * Every kind the audit trail shows (`GET /audit`, the UI's audit page): the
 * governance changes — tokens; people (`member.*`: invited, joined, a role
 * changed, removed); secrets; notifications and Mattermost links; the kill
 * switch and approvals setting (`workspace.settings_changed`); collaborator
 * rules; inbound webhooks configured or deleted; schedules created, changed, deleted; agents
 * created, saved, enabled, disabled, deleted, pinned, unpinned, tagged, untagged (decision 0046). Run, approval,
 * task and message facts are work, not governance: `/events` reads them.
 * Only the platform records these kinds: a producer's post of one is refused.
 */
export const AUDIT_FACT_KINDS: readonly string[] = [
  ...Object.values(TOKEN_FACT_KINDS),
  ...Object.values(MEMBER_FACT_KINDS),
  ...Object.values(SECRET_FACT_KINDS),
  ...Object.values(NOTIFICATION_FACT_KINDS),
  ...Object.values(MATTERMOST_FACT_KINDS),
  'workspace.settings_changed',
  'agent.collaborator_changed',
  'webhook.configured',
  'webhook.deleted',
  'schedule.created',
  'schedule.updated',
  'schedule.deleted',
  'agent.created',
  'agent.updated',
  'agent.enabled',
  'agent.disabled',
  'agent.deleted',
  'agent.pinned',
  'agent.unpinned',
  'agent.tagged',
  'agent.untagged',
  'agent.eval_gate_overridden',
];

const AUDIT_KIND_SET = new Set(AUDIT_FACT_KINDS);

/** Whether a kind is one of the audit trail's (recorded by the platform only). */
export function isAuditKind(kind: string): boolean {
  return AUDIT_KIND_SET.has(kind);
}
