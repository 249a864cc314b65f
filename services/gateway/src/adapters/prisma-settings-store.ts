import { ApprovalsSettingSchema, type PutSettingsRequest, type WorkspaceSettings } from '@switchyard/contracts';
import { recordFacts, type PrismaClient } from '@switchyard/db';
import type { FactsOf, SettingsStore } from '../ports';

/** Settings of a workspace that never saved any: agents run. */
export const DEFAULT_SETTINGS: WorkspaceSettings = { agentsPaused: false, approvals: 'enabled' };

/** Workspace settings on PostgreSQL (`workspace_settings`, one row per workspace once saved). */
export class PrismaSettingsStore implements SettingsStore {
  constructor(private readonly prisma: PrismaClient) {}

  async get(workspaceId: string): Promise<WorkspaceSettings> {
    const row = await this.prisma.workspaceSettings.findUnique({ where: { workspaceId } });
    return row ? { agentsPaused: row.agentsPaused, approvals: ApprovalsSettingSchema.parse(row.approvals) } : { ...DEFAULT_SETTINGS };
  }

  async put(workspaceId: string, settings: PutSettingsRequest, facts: FactsOf<WorkspaceSettings>): Promise<WorkspaceSettings> {
    return this.prisma.$transaction(async (tx) => {
      // INSERT … ON CONFLICT, so concurrent first saves of a workspace cannot collide.
      const [row] = await tx.$queryRaw<Array<{ agents_paused: boolean; approvals: string }>>`
        INSERT INTO workspace_settings (workspace_id, agents_paused, approvals, updated_at)
        VALUES (${workspaceId}::uuid, ${settings.agentsPaused ?? DEFAULT_SETTINGS.agentsPaused}, ${settings.approvals ?? DEFAULT_SETTINGS.approvals}, now())
        ON CONFLICT (workspace_id) DO UPDATE SET
          agents_paused = COALESCE(${settings.agentsPaused ?? null}::boolean, workspace_settings.agents_paused),
          approvals = COALESCE(${settings.approvals ?? null}::text, workspace_settings.approvals),
          updated_at = EXCLUDED.updated_at
        RETURNING agents_paused, approvals`;
      const saved = { agentsPaused: row!.agents_paused, approvals: ApprovalsSettingSchema.parse(row!.approvals) };
      await recordFacts(tx, facts(saved));
      return saved;
    });
  }
}
