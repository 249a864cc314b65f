import { MissedPolicySchema, ScheduleEmitSchema, type MissedPolicy, type ScheduleEmit } from '@switchyard/contracts';

/** A `schedules` row as the raw SQL of the stores returns it (SCHEDULE_COLUMNS). */
export interface ScheduleRow {
  id: string;
  workspace_id: string;
  name: string;
  cron: string | null;
  every_ms: number | null;
  timezone: string;
  enabled: boolean;
  emit: unknown;
  missed: string;
  anchor_at: Date;
  next_fire_at: Date | null;
  skipped_slots: number;
  created_at: Date;
  updated_at: Date;
}

/** The columns of ScheduleRow, for a statement on `schedules` (alias `s`). */
export const SCHEDULE_COLUMNS = `s.id::text AS id, s.workspace_id::text AS workspace_id, s.name, s.cron, s.every_ms, s.timezone, s.enabled, s.emit, s.missed,
  s.anchor_at, s.next_fire_at, s.skipped_slots, s.created_at, s.updated_at`;

/** A stored schedule, its persisted JSON parsed at the boundary. */
export interface ScheduleRecord {
  id: string;
  workspaceId: string;
  name: string;
  cron: string | null;
  everyMs: number | null;
  timezone: string;
  enabled: boolean;
  emit: ScheduleEmit;
  missed: MissedPolicy;
  anchorAt: Date;
  nextFireAt: Date | null;
  skippedSlots: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A row as the services use it. */
export function scheduleFromRow(row: ScheduleRow): ScheduleRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    cron: row.cron,
    everyMs: row.every_ms,
    timezone: row.timezone,
    enabled: row.enabled,
    emit: ScheduleEmitSchema.parse(row.emit),
    missed: MissedPolicySchema.parse(row.missed),
    anchorAt: row.anchor_at,
    nextFireAt: row.next_fire_at,
    skippedSlots: row.skipped_slots,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** One fire to write: its fact id, slot, and (for a slot's fire) the slot key. */
export interface FireToWrite {
  factId: string;
  scheduleId: string;
  workspaceId: string;
  slotAt: Date;
  slotKey: string | null;
  late: boolean;
  manual: boolean;
}

/**
 * Inserts fires; a slot already fired (its `slot_key`) is not inserted again.
 * Returns the fact ids it inserted (with when): only their facts are recorded.
 */
export const INSERT_FIRES_SQL = `INSERT INTO schedule_fires (fact_id, schedule_id, workspace_id, slot_at, slot_key, late, manual, fired_at)
  SELECT *, clock_timestamp() FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::text[], $6::boolean[], $7::boolean[])
  ON CONFLICT DO NOTHING
  RETURNING fact_id::text AS fact_id, fired_at`;

/** INSERT_FIRES_SQL's parameters. */
export function fireParams(fires: readonly FireToWrite[]): unknown[] {
  return [
    fires.map((f) => f.factId),
    fires.map((f) => f.scheduleId),
    fires.map((f) => f.workspaceId),
    fires.map((f) => f.slotAt),
    fires.map((f) => f.slotKey),
    fires.map((f) => f.late),
    fires.map((f) => f.manual),
  ];
}
