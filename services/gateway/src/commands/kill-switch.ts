import type { PutSettingsRequest, WorkspaceSettings } from '@switchyard/contracts';
import { settingsChangedFact } from '@switchyard/core';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import { assertRole } from '../http/auth';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { SettingsStore } from '../settings-ports';

/** What saving the workspace settings needs. */
export interface SettingsCommandDeps {
  settings: SettingsStore;
  outbox: FactFlusher;
  /** Names the person on the fact's actor. */
  userName: UserNameLookup;
}

/**
 * Saves the settings named (admins; the others keep their values), recording
 * `workspace.settings_changed` with them — every save, even an unchanged one,
 * its payload the settings after it and `changed` what it changed — relayed
 * before it returns: a fact posted after a pause is not activated.
 */
export async function saveSettings(deps: SettingsCommandDeps, principal: Principal, body: PutSettingsRequest, correlationId: string): Promise<WorkspaceSettings> {
  assertRole(principal, 'admin');
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const saved = await deps.settings.put(principal.workspaceId, body, ({ settings, changed }) => facts.record(settingsChangedFact(author, { ...settings, changed })));
  await deps.outbox.flush(facts.ids);
  return saved;
}

/** Turns the kill switch on or off (admins) — only `agentsPaused`, the other settings keep their values. */
export async function setKillSwitch(deps: SettingsCommandDeps, principal: Principal, paused: boolean, correlationId: string): Promise<void> {
  await saveSettings(deps, principal, { agentsPaused: paused }, correlationId);
}
