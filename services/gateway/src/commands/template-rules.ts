import { MAX_NOTIFICATION_RULES, type NotificationRule, type NotificationSettings, type TemplateRuleInstall } from '@switchyard/contracts';
import { canonicalJson, notificationSettingsChange, notificationSettingsFact } from '@switchyard/core';
import { ChangeFacts, namedAuthorOf } from '../audited-change';
import type { Principal } from '../auth-ports';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationCommandDeps } from './notification-settings';

/**
 * What installing a template's rules makes of the settings (decision 0049):
 * each rule is added unless one with its id is there — the same rule
 * (`already_installed`: adopting twice changes nothing) or the workspace's
 * own (`kept_existing`: never overwritten) — or the settings are full
 * (`no_room`). `settings` is null when nothing is added.
 */
export function mergeTemplateRules(current: NotificationSettings, rules: readonly NotificationRule[]): { settings: NotificationSettings | null; installs: TemplateRuleInstall[] } {
  const byId = new Map(current.rules.map((rule) => [rule.id, rule]));
  const added: NotificationRule[] = [];
  const installs = rules.map((rule): TemplateRuleInstall => {
    const existing = byId.get(rule.id);
    if (existing) return { id: rule.id, status: canonicalJson(existing) === canonicalJson(rule) ? 'already_installed' : 'kept_existing' };
    if (current.rules.length + added.length >= MAX_NOTIFICATION_RULES) return { id: rule.id, status: 'no_room' };
    added.push(rule);
    return { id: rule.id, status: 'installed' };
  });
  return { settings: added.length === 0 ? null : { ...current, rules: [...current.rules, ...added] }, installs };
}

/**
 * Installs an adopted template's notification rules into the workspace's one
 * audited settings document: merged under the settings' lock (a concurrent
 * save is never lost), recorded `notifications.settings_changed` like any
 * save. Only an admin changes the settings: for anyone else each rule is
 * `not_admin` (an admin adds them under Settings › Notifications).
 */
export async function installTemplateRules(
  deps: Pick<NotificationCommandDeps, 'notifications' | 'outbox' | 'userName'>,
  principal: Principal,
  rules: readonly NotificationRule[],
  correlationId: string,
): Promise<TemplateRuleInstall[]> {
  if (rules.length === 0) return [];
  if (principal.role !== 'admin') return rules.map((rule) => ({ id: rule.id, status: 'not_admin' }));
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  let installs: TemplateRuleInstall[] = [];
  await deps.notifications.updateSettings(
    principal.workspaceId,
    (before) => {
      const merged = mergeTemplateRules(before ?? DEFAULT_NOTIFICATION_SETTINGS, rules);
      installs = merged.installs;
      return merged.settings;
    },
    ({ before, after }) => facts.record(notificationSettingsFact(author, notificationSettingsChange(before ?? DEFAULT_NOTIFICATION_SETTINGS, after))),
  );
  await deps.outbox.flush(facts.ids);
  return installs;
}
