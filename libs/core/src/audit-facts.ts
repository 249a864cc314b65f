import { isDeepStrictEqual } from 'node:util';
import {
  MEMBER_FACT_KINDS,
  NOTIFICATION_FACT_KINDS,
  type MemberFactKind,
  type MemberFactPayload,
  type MemberInvitedPayload,
  type MattermostFactKind,
  type AcceptedFact,
  type MattermostLinkPayload,
  type NotificationRule,
  type NotificationSettings,
  type NotificationSettingsChangedPayload,
  type SecretFactKind,
  type TokenFactKind,
  type TokenFactPayload,
} from '@switchyard/contracts';
import { changeFact, type ChangeAuthor } from './platform-facts';

/*
 * Builders of the audit trail's facts (decision 0040): one per family, each
 * recorded by its store in the transaction of the change (decision 0024).
 * None of them is handed a secret value: a token is its listed info, a
 * secret its name, a connection its secrets' names.
 */

/** `token.created | token.revoked`: subject the token, payload its listed info and owner. */
export function tokenFact(author: ChangeAuthor, kind: TokenFactKind, token: TokenFactPayload): AcceptedFact {
  const payload: TokenFactPayload = { id: token.id, name: token.name, role: token.role, prefix: token.prefix, expiresAt: token.expiresAt, userId: token.userId };
  return changeFact(author, kind, { type: 'token', id: token.id }, payload);
}

/** `member.joined | role_changed | removed`: subject the person, payload who they are and their role (decision 0042). */
export function memberFact(author: ChangeAuthor, kind: Exclude<MemberFactKind, 'member.invited'>, member: MemberFactPayload): AcceptedFact {
  return changeFact(author, kind, { type: 'member', id: member.userId }, { ...member });
}

/** `member.invited`: subject the invitation (the invitee has no user yet), never its secret. */
export function memberInvitedFact(author: ChangeAuthor, invitation: MemberInvitedPayload): AcceptedFact {
  return changeFact(author, MEMBER_FACT_KINDS.invited, { type: 'invitation', id: invitation.invitationId }, { ...invitation });
}

/** `secret.set | secret.deleted`: subject the secret by name, payload its name alone. */
export function secretFact(author: ChangeAuthor, kind: SecretFactKind, name: string): AcceptedFact {
  return changeFact(author, kind, { type: 'secret', id: name }, { name });
}

/** `mattermost.linked | mattermost.unlinked`: subject the Mattermost user. */
export function mattermostLinkFact(author: ChangeAuthor, kind: MattermostFactKind, link: MattermostLinkPayload): AcceptedFact {
  return changeFact(author, kind, { type: 'mattermost_user', id: link.mattermostUserId }, { ...link });
}

/** Whether two values are the same JSON (key order aside: one may have come back from a jsonb column). */
const sameJson = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));

/** What a save did to the notification settings: the parts changed, and the rules added, removed or changed, by id. */
export function notificationSettingsChange(before: NotificationSettings, after: NotificationSettings): NotificationSettingsChangedPayload {
  const earlier = new Map<string, NotificationRule>(before.rules.map((rule) => [rule.id, rule]));
  const later = new Set(after.rules.map((rule) => rule.id));
  const rules = {
    added: after.rules.filter((rule) => !earlier.has(rule.id)).map((rule) => rule.id),
    removed: before.rules.filter((rule) => !later.has(rule.id)).map((rule) => rule.id),
    changed: after.rules.filter((rule) => earlier.has(rule.id) && !sameJson(earlier.get(rule.id), rule)).map((rule) => rule.id),
    count: after.rules.length,
  };
  const changed: NotificationSettingsChangedPayload['changed'] = [];
  if (!sameJson(before.connection, after.connection)) changed.push('connection');
  if (before.defaultChannel !== after.defaultChannel) changed.push('defaultChannel');
  // The rules as a list: a reordering alone is a change of the rules too (with no rule id listed).
  if (!sameJson(before.rules, after.rules)) changed.push('rules');
  return { changed, connection: after.connection, defaultChannel: after.defaultChannel, rules };
}

/** `notifications.settings_changed`: subject the workspace, payload what the save changed (notificationSettingsChange). */
export function notificationSettingsFact(author: ChangeAuthor, change: NotificationSettingsChangedPayload): AcceptedFact {
  return changeFact(author, NOTIFICATION_FACT_KINDS.settingsChanged, { type: 'workspace', id: author.workspaceId }, { ...change });
}
