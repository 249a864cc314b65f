import { fireParams, INSERT_FIRES_SQL, recordFacts, SCHEDULE_COLUMNS, scheduleFromRow, type PrismaClient, type ScheduleRecord, type ScheduleRow } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { ScheduleFireRecord, ScheduleStore, ScheduleWrite } from '../schedule-ports';

/** A rename raced by another to the same name: the unique index answers (Prisma's raw query error carries its name). */
const isNameTaken = (error: unknown) => String((error as Error)?.message).includes('schedules_workspace_id_name_key');

/** The row values of a write, $1–$11. */
const writeParams = (w: ScheduleWrite) => [w.id, w.workspaceId, w.name, w.cron, w.everyMs, w.timezone, w.enabled, JSON.stringify(w.emit), w.missed, w.anchorAt, w.nextFireAt];

/**
 * Schedules on PostgreSQL (`schedules`, `schedule_fires`; decision 0048).
 * Every statement names the workspace. A change and its audit fact commit
 * together; a manual fire and its fact too.
 */
export class PrismaScheduleStore implements ScheduleStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(write: ScheduleWrite, limit: number, facts: FactsOf<ScheduleRecord>): ReturnType<ScheduleStore['create']> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        // The workspace row's lock serializes creates of one workspace, so the count cannot be raced past the limit.
        await tx.$queryRawUnsafe(`SELECT id FROM workspaces WHERE id = $1::uuid FOR UPDATE`, write.workspaceId);
        const [{ n } = { n: 0 }] = await tx.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM schedules WHERE workspace_id = $1::uuid`, write.workspaceId);
        if (n >= limit) return { ok: false as const, reason: 'limit_reached' as const };
        const [row] = await tx.$queryRawUnsafe<ScheduleRow[]>(
          `INSERT INTO schedules AS s (id, workspace_id, name, cron, every_ms, timezone, enabled, emit, missed, anchor_at, next_fire_at, created_at, updated_at)
           VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, now(), now())
           ON CONFLICT (workspace_id, name) DO NOTHING
           RETURNING ${SCHEDULE_COLUMNS}`,
          ...writeParams(write),
        );
        if (!row) return { ok: false as const, reason: 'name_taken' as const };
        const schedule = scheduleFromRow(row);
        await recordFacts(tx, facts(schedule));
        return { ok: true as const, schedule };
      });
    } catch (error) {
      if (isNameTaken(error)) return { ok: false as const, reason: 'name_taken' as const };
      throw error;
    }
  }

  async list(workspaceId: string): Promise<ScheduleRecord[]> {
    const rows = await this.prisma.$queryRawUnsafe<ScheduleRow[]>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.workspace_id = $1::uuid ORDER BY s.name`, workspaceId);
    return rows.map(scheduleFromRow);
  }

  async get(workspaceId: string, id: string): Promise<ScheduleRecord | null> {
    const [row] = await this.prisma.$queryRawUnsafe<ScheduleRow[]>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid`, workspaceId, id);
    return row ? scheduleFromRow(row) : null;
  }

  async update(workspaceId: string, id: string, change: (current: ScheduleRecord) => ScheduleWrite, facts: FactsOf<ScheduleRecord>): ReturnType<ScheduleStore['update']> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const [current] = await tx.$queryRawUnsafe<ScheduleRow[]>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid FOR UPDATE`, workspaceId, id);
        if (!current) return { ok: false as const, reason: 'not_found' as const };
        const write = change(scheduleFromRow(current));
        const [taken] = await tx.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM schedules WHERE workspace_id = $1::uuid AND name = $2 AND id <> $3::uuid`, workspaceId, write.name, id);
        if (taken) return { ok: false as const, reason: 'name_taken' as const };
        const [row] = await tx.$queryRawUnsafe<ScheduleRow[]>(
          `UPDATE schedules s SET name = $3, cron = $4, every_ms = $5, timezone = $6, enabled = $7, emit = $8::jsonb, missed = $9, anchor_at = $10, next_fire_at = $11, updated_at = now()
            WHERE s.id = $1::uuid AND s.workspace_id = $2::uuid
            RETURNING ${SCHEDULE_COLUMNS}`,
          ...writeParams(write),
        );
        const schedule = scheduleFromRow(row!);
        await recordFacts(tx, facts(schedule));
        return { ok: true as const, schedule };
      });
    } catch (error) {
      if (isNameTaken(error)) return { ok: false as const, reason: 'name_taken' as const };
      throw error;
    }
  }

  async delete(workspaceId: string, id: string, facts: FactsOf<ScheduleRecord>): Promise<ScheduleRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<ScheduleRow[]>(`DELETE FROM schedules s WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid RETURNING ${SCHEDULE_COLUMNS}`, workspaceId, id);
      if (!row) return null;
      const deleted = scheduleFromRow(row);
      await recordFacts(tx, facts(deleted));
      return deleted;
    });
  }

  async fire(workspaceId: string, id: string, fire: Parameters<ScheduleStore['fire']>[2]) {
    return this.prisma.$transaction(async (tx) => {
      const [current] = await tx.$queryRawUnsafe<ScheduleRow[]>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid FOR SHARE`, workspaceId, id);
      if (!current) return null;
      const { row, facts } = fire(scheduleFromRow(current));
      const [inserted] = await tx.$queryRawUnsafe<Array<{ fired_at: Date }>>(INSERT_FIRES_SQL, ...fireParams([row]));
      await recordFacts(tx, facts);
      return { factId: row.factId, slotAt: row.slotAt, firedAt: inserted!.fired_at, late: row.late, manual: row.manual };
    });
  }

  async fires(workspaceId: string, id: string, limit: number): Promise<ScheduleFireRecord[] | null> {
    if (!(await this.get(workspaceId, id))) return null;
    const rows = await this.prisma.$queryRawUnsafe<Array<{ fact_id: string; slot_at: Date; fired_at: Date; late: boolean; manual: boolean }>>(
      `SELECT fact_id::text AS fact_id, slot_at, fired_at, late, manual FROM schedule_fires
        WHERE workspace_id = $1::uuid AND schedule_id = $2::uuid ORDER BY fired_at DESC, slot_at DESC LIMIT $3`,
      workspaceId,
      id,
      limit,
    );
    return rows.map((r) => ({ factId: r.fact_id, slotAt: r.slot_at, firedAt: r.fired_at, late: r.late, manual: r.manual }));
  }
}
