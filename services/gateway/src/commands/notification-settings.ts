import { createHash, randomBytes } from 'node:crypto';
import {
  AppError,
  DEFAULT_NOTIFICATION_RULES,
  ErrorCode,
  MATTERMOST_LINK_CODE_TTL_MS,
  type NotificationConnection,
  type NotificationSettings,
  type NotificationTestResponse,
} from '@switchyard/contracts';
import { notificationSettingsChange, notificationSettingsFact, OutboundUrlError, resolveOutboundUrl, type MattermostRest, type MattermostTarget } from '@switchyard/core';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import type { NotificationStore } from '../notification-ports';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';

/** What the notification commands need. */
export interface NotificationCommandDeps {
  notifications: NotificationStore;
  /** Relays `notifications.settings_changed` before the answer. */
  outbox: FactFlusher;
  /** Names the person on the facts' actor. */
  userName: UserNameLookup;
  /** A workspace secret's plaintext (null: absent); null itself without SECRETS_KEY. */
  readSecret: ((workspaceId: string, name: string) => Promise<string | null>) | null;
  mattermost: MattermostRest;
  /** How outbound URLs are checked (NOTIFICATIONS_ALLOW_PRIVATE, NOTIFICATIONS_ALLOWED_HOSTS). */
  outbound: { allowPrivate: boolean; allowedHosts: readonly string[] };
}

/** Settings of a workspace that never saved any: no connection, the default rules. */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { connection: null, defaultChannel: null, rules: [...DEFAULT_NOTIFICATION_RULES] };

export async function readNotificationSettings(deps: NotificationCommandDeps, principal: Principal): Promise<NotificationSettings> {
  return (await deps.notifications.getSettings(principal.workspaceId)) ?? DEFAULT_NOTIFICATION_SETTINGS;
}

/**
 * Saves the settings once the server URL passes the outbound check (a
 * webhook's URL is a secret: checked on every send), recording
 * `notifications.settings_changed` with every save: what it changed, never a
 * credential (the connection names its secrets).
 */
export async function saveNotificationSettings(deps: NotificationCommandDeps, principal: Principal, settings: NotificationSettings, correlationId: string): Promise<NotificationSettings> {
  if (settings.connection?.type === 'bot') await checkOutbound(deps, settings.connection.serverUrl, ['connection', 'serverUrl']);
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const saved = await deps.notifications.putSettings(principal.workspaceId, settings, ({ before, after }) =>
    facts.record(notificationSettingsFact(author, notificationSettingsChange(before ?? DEFAULT_NOTIFICATION_SETTINGS, after))),
  );
  await deps.outbox.flush(facts.ids);
  return saved;
}

async function checkOutbound(deps: NotificationCommandDeps, url: string, path: string[]): Promise<void> {
  try {
    await resolveOutboundUrl(url, deps.outbound);
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error;
    throw new AppError(ErrorCode.OUTBOUND_URL_REFUSED, error.message, { reason: error.code, path, ...error.data });
  }
}

/** The connection with its secret opened, or NOTIFICATIONS_NOT_CONFIGURED naming what is missing. */
export async function openConnection(deps: Pick<NotificationCommandDeps, 'readSecret'>, workspaceId: string, connection: NotificationConnection | null): Promise<MattermostTarget> {
  if (!connection) throw new AppError(ErrorCode.NOTIFICATIONS_NOT_CONFIGURED, 'notifications have no connection: PUT settings/notifications first');
  if (!deps.readSecret) throw new AppError(ErrorCode.UNAVAILABLE, 'workspace secrets are unavailable: SECRETS_KEY is not configured on the gateway');
  const name = connection.type === 'bot' ? connection.tokenSecret : connection.webhookUrlSecret;
  const value = await deps.readSecret(workspaceId, name);
  if (value === null) throw new AppError(ErrorCode.NOTIFICATIONS_NOT_CONFIGURED, `the connection's secret ${name} does not exist`, { missing: name });
  return connection.type === 'bot' ? { type: 'bot', serverUrl: connection.serverUrl, token: value } : { type: 'webhook', url: value };
}

/** Sends a test post and reports Mattermost's answer as it came (a refusal is an answer, not an error). */
export async function sendTestNotification(deps: NotificationCommandDeps, principal: Principal, channel: string | undefined): Promise<NotificationTestResponse> {
  const settings = await readNotificationSettings(deps, principal);
  const target = await openConnection(deps, principal.workspaceId, settings.connection);
  const channelId = channel ?? settings.defaultChannel;
  if (target.type === 'bot' && !channelId) throw new AppError(ErrorCode.VALIDATION_FAILED, 'invalid body', [{ code: 'custom', path: ['channel'], message: 'a channel is needed when there is no defaultChannel' }]);
  const answer = await deps.mattermost.createPost(target, { channel_id: channelId ?? '', message: `Switchyard test post from workspace \`${principal.workspaceSlug}\`` });
  return answer.ok
    ? { ok: true, status: answer.status, postId: answer.postId, message: 'posted' }
    : { ok: false, status: answer.status, postId: null, message: answer.message };
}

/** The SHA-256 a link code is stored as. */
export const linkCodeHash = (code: string) => createHash('sha256').update(code.trim()).digest('hex');

/**
 * Issues a one-time code that links a Mattermost user to the caller
 * (`/switchyard link <code>`), acting at most with the asking token's role:
 * a viewer token cannot become its owner's admin in Mattermost. People
 * only: an agent never links a chat user.
 */
export async function issueMattermostLinkCode(deps: Pick<NotificationCommandDeps, 'notifications'>, principal: Principal, now = new Date()): Promise<{ code: string; expiresAt: string }> {
  if (principal.agent) throw new AppError(ErrorCode.FORBIDDEN, 'an agent token cannot link a Mattermost user', { required: 'a person’s token', actual: 'agent' });
  const code = randomBytes(15).toString('base64url');
  const expiresAt = new Date(now.getTime() + MATTERMOST_LINK_CODE_TTL_MS);
  await deps.notifications.issueLinkCode(principal.workspaceId, principal.userId, principal.role, linkCodeHash(code), expiresAt);
  return { code, expiresAt: expiresAt.toISOString() };
}
