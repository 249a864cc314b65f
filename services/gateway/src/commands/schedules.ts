import {
  AppError,
  ErrorCode,
  MAX_SCHEDULES_PER_WORKSPACE,
  SCHEDULE_FACT_KINDS,
  type CreateScheduleRequest,
  type Schedule,
  type ScheduleFactKind,
  type ScheduleFire,
  type UpdateScheduleRequest,
} from '@switchyard/contracts';
import { assertTiming, localTime, newId, nextSlot, scheduleChangeFact, scheduleFireFact, timingOf } from '@switchyard/core';
import type { ScheduleRecord } from '@switchyard/db';
import { actorOf, changeAuthorOf } from '../change-author';
import { assertRole } from '../http/auth';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { ScheduleFireRecord, ScheduleStore, ScheduleWrite } from '../schedule-ports';
import { ChangeFacts } from '../audited-change';

/** What the schedule commands need. */
export interface ScheduleCommandDeps {
  schedules: ScheduleStore;
  outbox: FactFlusher;
  /** The time next slots are reckoned from. @defaultValue the system clock */
  clock?: () => Date;
}

/** Who asks, and the id that ties the request to the facts it records. */
export interface ScheduleCommandContext {
  principal: Principal;
  correlationId: string;
}

const notFound = (id: string) => new AppError(ErrorCode.SCHEDULE_NOT_FOUND, 'no such schedule in this workspace', { id });
const nameTaken = (name: string) => new AppError(ErrorCode.SCHEDULE_NAME_TAKEN, 'another schedule of this workspace has that name', { name });

/** A stored schedule as the API answers it, its next fire also in its own zone. */
export function toSchedule(record: ScheduleRecord): Schedule {
  return {
    id: record.id,
    name: record.name,
    cron: record.cron,
    everyMs: record.everyMs,
    timezone: record.timezone,
    enabled: record.enabled,
    emit: record.emit,
    missed: record.missed,
    nextFireAt: record.nextFireAt?.toISOString() ?? null,
    nextFireLocal: record.nextFireAt ? localTime(record.nextFireAt, record.timezone) : null,
    skippedSlots: record.skippedSlots,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

/** A stored fire as the API answers it. */
const toFire = (fire: ScheduleFireRecord): ScheduleFire => ({ factId: fire.factId, slotAt: fire.slotAt.toISOString(), firedAt: fire.firedAt.toISOString(), late: fire.late, manual: fire.manual });

/** What an audit fact says of a schedule: its definition, not its next slot (that changes with every fire). */
function auditPayload(record: ScheduleRecord) {
  const { id, name, cron, everyMs, timezone, enabled, emit, missed } = record;
  return { id, name, cron, everyMs, timezone, enabled, emitKind: emit.kind, missed };
}

/**
 * Workspace schedules (docs/schedules.md, decision 0048): members create,
 * change, delete and fire them; viewers read. A timing is checked by the cron
 * library before anything is written (SCHEDULE_INVALID); every change records
 * its audit fact (`schedule.created | updated | deleted`) in its transaction.
 * The slots fire in the event-log; `fire` records one fire now.
 */
export class ScheduleBook {
  constructor(private readonly deps: ScheduleCommandDeps) {}

  private now(): Date {
    return (this.deps.clock ?? (() => new Date()))();
  }

  async create(ctx: ScheduleCommandContext, request: CreateScheduleRequest): Promise<Schedule> {
    assertRole(ctx.principal, 'member');
    const now = this.now();
    const write: ScheduleWrite = {
      id: newId(),
      workspaceId: ctx.principal.workspaceId,
      name: request.name,
      cron: request.cron ?? null,
      everyMs: request.everyMs ?? null,
      timezone: request.timezone,
      enabled: request.enabled,
      emit: request.emit,
      missed: request.missed,
      anchorAt: now,
      nextFireAt: null,
    };
    write.nextFireAt = this.firstSlot(write, now);
    const facts = new ChangeFacts(ctx.correlationId);
    const result = await this.deps.schedules.create(write, MAX_SCHEDULES_PER_WORKSPACE, (record) => facts.record(this.fact(ctx, SCHEDULE_FACT_KINDS.created, record)));
    if (!result.ok) {
      if (result.reason === 'name_taken') throw nameTaken(request.name);
      throw new AppError(ErrorCode.SCHEDULE_LIMIT_REACHED, 'this workspace holds the most schedules it may', { limit: MAX_SCHEDULES_PER_WORKSPACE });
    }
    await this.deps.outbox.flush(facts.ids);
    return toSchedule(result.schedule);
  }

  async list(principal: Principal): Promise<Schedule[]> {
    assertRole(principal, 'viewer');
    return (await this.deps.schedules.list(principal.workspaceId)).map(toSchedule);
  }

  async get(principal: Principal, id: string): Promise<Schedule> {
    assertRole(principal, 'viewer');
    const record = await this.deps.schedules.get(principal.workspaceId, id);
    if (!record) throw notFound(id);
    return toSchedule(record);
  }

  /** Changes a schedule; a new timing, or enabling it, reckons its next slot from now. */
  async update(ctx: ScheduleCommandContext, id: string, request: UpdateScheduleRequest): Promise<Schedule> {
    assertRole(ctx.principal, 'member');
    const now = this.now();
    // Checked before the transaction: a bad timing writes nothing.
    if (request.cron !== undefined) assertTiming({ cron: request.cron, timezone: request.timezone ?? 'UTC' }, now);
    const facts = new ChangeFacts(ctx.correlationId);
    const result = await this.deps.schedules.update(
      ctx.principal.workspaceId,
      id,
      (current) => this.changed(current, request, now),
      (record) => facts.record(this.fact(ctx, SCHEDULE_FACT_KINDS.updated, record)),
    );
    if (!result.ok) throw result.reason === 'not_found' ? notFound(id) : nameTaken(request.name ?? '');
    await this.deps.outbox.flush(facts.ids);
    return toSchedule(result.schedule);
  }

  async delete(ctx: ScheduleCommandContext, id: string): Promise<void> {
    assertRole(ctx.principal, 'member');
    const facts = new ChangeFacts(ctx.correlationId);
    const deleted = await this.deps.schedules.delete(ctx.principal.workspaceId, id, (record) => facts.record(this.fact(ctx, SCHEDULE_FACT_KINDS.deleted, record)));
    if (!deleted) throw notFound(id);
    await this.deps.outbox.flush(facts.ids);
  }

  /**
   * Fires a schedule now (`POST /fire`), enabled or not: one fact as a slot's
   * fire records it, marked `manual`, attributed to the caller (an agent's
   * fire is caused by its run, so the loop guards see it).
   */
  async fire(ctx: ScheduleCommandContext, id: string): Promise<ScheduleFire> {
    assertRole(ctx.principal, 'member');
    const now = this.now();
    const { principal } = ctx;
    const factIds: string[] = [];
    const fired = await this.deps.schedules.fire(principal.workspaceId, id, (schedule) => {
      const fact = scheduleFireFact({ ...schedule, workspaceSlug: principal.workspaceSlug }, { slotAt: now, late: false, manual: true, actor: actorOf(principal), now });
      if (principal.agent) fact.causedBy = { runId: principal.agent.runId, agentId: principal.agent.agentId, depth: principal.agent.depth + 1 };
      factIds.push(fact.id);
      const row = { factId: fact.id, scheduleId: schedule.id, workspaceId: schedule.workspaceId, slotAt: now, slotKey: null, late: false, manual: true };
      return { row, facts: [{ fact, correlationId: ctx.correlationId }] };
    });
    if (!fired) throw notFound(id);
    await this.deps.outbox.flush(factIds);
    return toFire(fired);
  }

  async fires(principal: Principal, id: string, limit: number): Promise<ScheduleFire[]> {
    assertRole(principal, 'viewer');
    const fires = await this.deps.schedules.fires(principal.workspaceId, id, limit);
    if (!fires) throw notFound(id);
    return fires.map(toFire);
  }

  /** The schedule after a change; its next slot anew when its timing changed or it was enabled. */
  private changed(current: ScheduleRecord, request: UpdateScheduleRequest, now: Date): ScheduleWrite {
    const next: ScheduleWrite = {
      ...current,
      name: request.name ?? current.name,
      cron: request.everyMs !== undefined ? null : (request.cron ?? current.cron),
      everyMs: request.cron !== undefined ? null : (request.everyMs ?? current.everyMs),
      timezone: request.timezone ?? current.timezone,
      enabled: request.enabled ?? current.enabled,
      emit: request.emit ?? current.emit,
      missed: request.missed ?? current.missed,
      anchorAt: current.anchorAt,
    };
    // A new cron, interval, or the zone of a cron: the slots are new, reckoned from now.
    const retimed = request.cron !== undefined || request.everyMs !== undefined || (request.timezone !== undefined && next.cron !== null);
    if (retimed) next.anchorAt = now;
    if (!next.enabled) next.nextFireAt = null;
    else if (retimed || !current.enabled || current.nextFireAt === null) next.nextFireAt = this.firstSlot(next, now);
    return next;
  }

  /** The first slot after now of a schedule to be stored; checks its timing (SCHEDULE_INVALID). Null while disabled. */
  private firstSlot(write: ScheduleWrite, now: Date): Date | null {
    const timing = timingOf(write);
    assertTiming(timing, now);
    return write.enabled ? nextSlot(timing, now) : null;
  }

  private fact(ctx: ScheduleCommandContext, kind: ScheduleFactKind, record: ScheduleRecord) {
    return scheduleChangeFact(changeAuthorOf(ctx.principal), kind, auditPayload(record));
  }
}
