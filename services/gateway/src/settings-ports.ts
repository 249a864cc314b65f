import type { PutSettingsRequest, WorkspaceSettingName, WorkspaceSettings } from '@switchyard/contracts';
import type { FactsOf } from './fact-ports';

/** Workspace-wide settings (the kill switch). A workspace without a row has the defaults. */
export interface SettingsStore {
  get(workspaceId: string): Promise<WorkspaceSettings>;
  /**
   * Saves the settings named (the others keep their saved values), with the
   * facts built from the result in its transaction; returns them as stored.
   */
  put(workspaceId: string, settings: PutSettingsRequest, facts: FactsOf<SettingsChange>): Promise<WorkspaceSettings>;
}

/** A save of the settings: what they are after it, and which of them it changed (saves of a workspace are serialized). */
export interface SettingsChange {
  settings: WorkspaceSettings;
  changed: WorkspaceSettingName[];
}
