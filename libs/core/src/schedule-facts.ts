import { type AcceptedFact, type Actor, type ScheduleEmit, type ScheduleFactKind, type ScheduleFirePayload } from '@switchyard/contracts';
import { derivedId, newId } from './ids';
import { changeFact, type ChangeAuthor } from './platform-facts';

/** Who records a slot's fire: the platform itself, as it records run statuses and ops facts. */
export const SCHEDULER_ACTOR: Actor = { type: 'system', id: 'switchyard' };

/** The schedule a fire is of, as its fact needs it. */
export interface FiringSchedule {
  id: string;
  name: string;
  workspaceId: string;
  workspaceSlug: string;
  emit: ScheduleEmit;
}

/** A slot fire's idempotency key: the schedule and the slot, so one slot is one fact across replicas and restarts. */
export const slotKeyOf = (scheduleId: string, slotAt: Date) => `schedule:${scheduleId}:${slotAt.toISOString()}`;

/**
 * The fact one fire records: the emit's kind (`schedule.fired` by default),
 * its subject (the schedule by default), its payload with `schedule`
 * `{id, name, slotAt, late, manual}` set by the platform. A slot's fire
 * carries the slot key as idempotency key; a manual fire none (each is its own).
 */
export function scheduleFireFact(schedule: FiringSchedule, fire: { slotAt: Date; late: boolean; manual: boolean; actor: Actor; now: Date }): AcceptedFact {
  const info: ScheduleFirePayload = { id: schedule.id, name: schedule.name, slotAt: fire.slotAt.toISOString(), late: fire.late, manual: fire.manual };
  return {
    // A slot's fact id is derived from the slot: a repeat of the fire is the same fact, even before the key is checked.
    id: fire.manual ? newId() : derivedId('schedule-fire', schedule.id, fire.slotAt.toISOString()),
    workspace: schedule.workspaceSlug,
    workspaceId: schedule.workspaceId,
    kind: schedule.emit.kind,
    subject: schedule.emit.subject ?? { type: 'schedule', id: schedule.id },
    actor: fire.actor,
    payload: { ...schedule.emit.payload, schedule: info },
    ...(fire.manual ? {} : { idempotencyKey: slotKeyOf(schedule.id, fire.slotAt) }),
    ts: fire.now.toISOString(),
  };
}

/** A schedule's audit fact (`schedule.created | updated | deleted`): subject the schedule, payload what it is after the change. */
export function scheduleChangeFact(author: ChangeAuthor, kind: ScheduleFactKind, schedule: { id: string; name: string } & Record<string, unknown>): AcceptedFact {
  return changeFact(author, kind, { type: 'schedule', id: schedule.id }, JSON.parse(JSON.stringify(schedule)) as AcceptedFact['payload']);
}

