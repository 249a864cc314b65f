import { settingsChangedFact } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import { assertRole } from '../http/auth';
import type { FactFlusher, Principal, SettingsStore } from '../ports';

/** Turns the kill switch on or off (admins), recording `workspace.settings_changed` with it, relayed before it returns. */
export async function setKillSwitch(deps: { settings: SettingsStore; outbox: FactFlusher }, principal: Principal, paused: boolean, correlationId: string): Promise<void> {
  assertRole(principal, 'admin');
  const current = await deps.settings.get(principal.workspaceId);
  const body = { ...current, agentsPaused: paused };
  const fact = settingsChangedFact(changeAuthorOf(principal), body);
  await deps.settings.put(principal.workspaceId, body, (stored) => [{ fact: { ...fact, payload: { ...stored } }, correlationId }]);
  await deps.outbox.flush([fact.id]);
}
