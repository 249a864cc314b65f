import { settingsChangedFact } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import { assertRole } from '../http/auth';
import type { FactFlusher, Principal, SettingsStore } from '../ports';

/**
 * Turns the kill switch on or off (admins) — only `agentsPaused`, the other
 * settings keep their values — recording `workspace.settings_changed` with
 * it, relayed before it returns (as `PUT /settings` does).
 */
export async function setKillSwitch(deps: { settings: SettingsStore; outbox: FactFlusher }, principal: Principal, paused: boolean, correlationId: string): Promise<void> {
  assertRole(principal, 'admin');
  const author = changeAuthorOf(principal);
  let factId = '';
  await deps.settings.put(principal.workspaceId, { agentsPaused: paused }, (stored) => {
    const fact = settingsChangedFact(author, stored);
    factId = fact.id;
    return [{ fact, correlationId }];
  });
  await deps.outbox.flush([factId]);
}
