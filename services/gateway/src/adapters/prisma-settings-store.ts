import { ApprovalsSettingSchema, RETENTION_DEFAULTS, type PutSettingsRequest, type WorkspaceSettingName, type WorkspaceSettings } from '@switchyard/contracts';
import { recordFacts, type Prisma, type PrismaClient } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { SettingsChange, SettingsStore } from '../settings-ports';

/** Settings of a workspace that never saved any: agents run; the platform's retention (decision 0041). */
export const DEFAULT_SETTINGS: WorkspaceSettings = { agentsPaused: false, approvals: 'enabled', retention: { ...RETENTION_DEFAULTS } };

type SettingsRow = { agents_paused: boolean; approvals: string; facts_retention_days: number | null; transcripts_retention_days: number | null; max_concurrent_runs: number | null };
const SETTINGS_COLUMNS = 'agents_paused, approvals, facts_retention_days, transcripts_retention_days, max_concurrent_runs';

/** A stored row as the settings that apply: a null retention column is the platform default. */
const settingsOf = (row: SettingsRow): WorkspaceSettings => ({
  agentsPaused: row.agents_paused,
  approvals: ApprovalsSettingSchema.parse(row.approvals),
  retention: {
    factsDays: row.facts_retention_days ?? RETENTION_DEFAULTS.factsDays,
    transcriptsDays: row.transcripts_retention_days ?? RETENTION_DEFAULTS.transcriptsDays,
  },
  // Absent, not null, when unset: the settings of a workspace that never set it read as before.
  ...(row.max_concurrent_runs === null ? {} : { maxConcurrentRuns: row.max_concurrent_runs }),
});

/** Workspace settings on PostgreSQL (`workspace_settings`, one row per workspace once saved). */
export class PrismaSettingsStore implements SettingsStore {
  constructor(private readonly prisma: PrismaClient) {}

  async get(workspaceId: string): Promise<WorkspaceSettings> {
    const [row] = await this.prisma.$queryRawUnsafe<SettingsRow[]>(`SELECT ${SETTINGS_COLUMNS} FROM workspace_settings WHERE workspace_id = $1::uuid`, workspaceId);
    return row ? settingsOf(row) : structuredClone(DEFAULT_SETTINGS);
  }

  async put(workspaceId: string, settings: PutSettingsRequest, facts: FactsOf<SettingsChange>): Promise<WorkspaceSettings> {
    return this.prisma.$transaction(async (tx) => {
      // One save of a workspace's settings at a time, so each knows what it changed (the audit trail, decision 0040):
      // the lock comes first, then a read that sees every save before it (a statement of its own: its own snapshot).
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended('workspace-settings:' || ${workspaceId}, 0))::text`;
      const [before] = await tx.$queryRawUnsafe<SettingsRow[]>(`SELECT ${SETTINGS_COLUMNS} FROM workspace_settings WHERE workspace_id = $1::uuid`, workspaceId);
      const saved = await upsertSettings(tx, workspaceId, settings);
      await recordFacts(tx, facts({ settings: saved, changed: changedSettings(before ? settingsOf(before) : DEFAULT_SETTINGS, saved) }));
      return saved;
    });
  }
}

/** The settings whose value differs between two states, in a stable order. */
function changedSettings(before: WorkspaceSettings, after: WorkspaceSettings): WorkspaceSettingName[] {
  const changed: WorkspaceSettingName[] = (['agentsPaused', 'approvals'] as const).filter((name) => before[name] !== after[name]);
  const { retention: was } = before;
  const { retention: now } = after;
  if (was.factsDays !== now.factsDays || was.transcriptsDays !== now.transcriptsDays) changed.push('retention');
  if (before.maxConcurrentRuns !== after.maxConcurrentRuns) changed.push('maxConcurrentRuns');
  return changed;
}

/**
 * A nullable setting column's new value (retention, the run ceiling): absent leaves it, a number
 * sets it, null puts the default back (stored as null, so a later change of the default applies to it).
 */
function retentionParams(days: number | null | undefined): [boolean, number | null] {
  return days === undefined ? [false, null] : [true, days];
}

async function upsertSettings(tx: Prisma.TransactionClient, workspaceId: string, settings: PutSettingsRequest): Promise<WorkspaceSettings> {
  const [setFacts, factsDays] = retentionParams(settings.retention?.factsDays);
  const [setTranscripts, transcriptsDays] = retentionParams(settings.retention?.transcriptsDays);
  const [setCeiling, ceiling] = retentionParams(settings.maxConcurrentRuns);
  // INSERT … ON CONFLICT, so concurrent first saves of a workspace cannot collide.
  const [row] = await tx.$queryRaw<SettingsRow[]>`
    INSERT INTO workspace_settings (workspace_id, agents_paused, approvals, facts_retention_days, transcripts_retention_days, max_concurrent_runs, updated_at)
    VALUES (${workspaceId}::uuid, ${settings.agentsPaused ?? DEFAULT_SETTINGS.agentsPaused}, ${settings.approvals ?? DEFAULT_SETTINGS.approvals},
            ${factsDays}::int, ${transcriptsDays}::int, ${ceiling}::int, now())
    ON CONFLICT (workspace_id) DO UPDATE SET
      agents_paused = COALESCE(${settings.agentsPaused ?? null}::boolean, workspace_settings.agents_paused),
      approvals = COALESCE(${settings.approvals ?? null}::text, workspace_settings.approvals),
      facts_retention_days = CASE WHEN ${setFacts}::boolean THEN EXCLUDED.facts_retention_days ELSE workspace_settings.facts_retention_days END,
      transcripts_retention_days = CASE WHEN ${setTranscripts}::boolean THEN EXCLUDED.transcripts_retention_days ELSE workspace_settings.transcripts_retention_days END,
      max_concurrent_runs = CASE WHEN ${setCeiling}::boolean THEN EXCLUDED.max_concurrent_runs ELSE workspace_settings.max_concurrent_runs END,
      updated_at = EXCLUDED.updated_at
    RETURNING agents_paused, approvals, facts_retention_days, transcripts_retention_days, max_concurrent_runs`;
  return settingsOf(row!);
}
