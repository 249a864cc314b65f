import { ApprovalsSettingSchema, type PutSettingsRequest, type WorkspaceSettingName, type WorkspaceSettings } from '@switchyard/contracts';
import { recordFacts, type Prisma, type PrismaClient } from '@switchyard/db';
import type { FactsOf, SettingsChange, SettingsStore } from '../ports';

/** Settings of a workspace that never saved any: agents run. */
export const DEFAULT_SETTINGS: WorkspaceSettings = { agentsPaused: false, approvals: 'enabled' };

type SettingsRow = { agents_paused: boolean; approvals: string };
const settingsOf = (row: SettingsRow): WorkspaceSettings => ({ agentsPaused: row.agents_paused, approvals: ApprovalsSettingSchema.parse(row.approvals) });

/** Workspace settings on PostgreSQL (`workspace_settings`, one row per workspace once saved). */
export class PrismaSettingsStore implements SettingsStore {
  constructor(private readonly prisma: PrismaClient) {}

  async get(workspaceId: string): Promise<WorkspaceSettings> {
    const row = await this.prisma.workspaceSettings.findUnique({ where: { workspaceId } });
    return row ? { agentsPaused: row.agentsPaused, approvals: ApprovalsSettingSchema.parse(row.approvals) } : { ...DEFAULT_SETTINGS };
  }

  async put(workspaceId: string, settings: PutSettingsRequest, facts: FactsOf<SettingsChange>): Promise<WorkspaceSettings> {
    return this.prisma.$transaction(async (tx) => {
      // One save of a workspace's settings at a time, so each knows what it changed (the audit trail, decision 0040):
      // the lock comes first, then a read that sees every save before it (a statement of its own: its own snapshot).
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended('workspace-settings:' || ${workspaceId}, 0))::text`;
      const [before] = await tx.$queryRaw<SettingsRow[]>`SELECT agents_paused, approvals FROM workspace_settings WHERE workspace_id = ${workspaceId}::uuid`;
      const saved = await upsertSettings(tx, workspaceId, settings);
      await recordFacts(tx, facts({ settings: saved, changed: changedSettings(before ? settingsOf(before) : DEFAULT_SETTINGS, saved) }));
      return saved;
    });
  }
}

/** The settings whose value differs between two states, in a stable order. */
function changedSettings(before: WorkspaceSettings, after: WorkspaceSettings): WorkspaceSettingName[] {
  return (['agentsPaused', 'approvals'] as const).filter((name) => before[name] !== after[name]);
}

async function upsertSettings(tx: Prisma.TransactionClient, workspaceId: string, settings: PutSettingsRequest): Promise<WorkspaceSettings> {
  // INSERT … ON CONFLICT, so concurrent first saves of a workspace cannot collide.
  const [row] = await tx.$queryRaw<SettingsRow[]>`
    INSERT INTO workspace_settings (workspace_id, agents_paused, approvals, updated_at)
    VALUES (${workspaceId}::uuid, ${settings.agentsPaused ?? DEFAULT_SETTINGS.agentsPaused}, ${settings.approvals ?? DEFAULT_SETTINGS.approvals}, now())
    ON CONFLICT (workspace_id) DO UPDATE SET
      agents_paused = COALESCE(${settings.agentsPaused ?? null}::boolean, workspace_settings.agents_paused),
      approvals = COALESCE(${settings.approvals ?? null}::text, workspace_settings.approvals),
      updated_at = EXCLUDED.updated_at
    RETURNING agents_paused, approvals`;
  return settingsOf(row!);
}
