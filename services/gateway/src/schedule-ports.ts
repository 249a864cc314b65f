import type { FireToWrite, ScheduleRecord } from '@switchyard/db';
import type { FactsOf } from './fact-ports';

/** What a create or change stores: the whole schedule as it is to be (its counters and times are the store's). */
export type ScheduleWrite = Omit<ScheduleRecord, 'skippedSlots' | 'createdAt' | 'updatedAt'>;

/** A fire as `GET /fires` lists it. */
export interface ScheduleFireRecord {
  factId: string;
  slotAt: Date;
  firedAt: Date;
  late: boolean;
  manual: boolean;
}

/** Schedules on PostgreSQL; the gateway writes their definitions, the event-log their fires. */
export interface ScheduleStore {
  /** Stores a new schedule with the facts `facts` gives; refused when the name is taken or the workspace is full. */
  create(write: ScheduleWrite, limit: number, facts: FactsOf<ScheduleRecord>): Promise<{ ok: true; schedule: ScheduleRecord } | { ok: false; reason: 'name_taken' | 'limit_reached' }>;
  list(workspaceId: string): Promise<ScheduleRecord[]>;
  get(workspaceId: string, id: string): Promise<ScheduleRecord | null>;
  /**
   * Replaces a schedule of the workspace by `change` of its stored row, read
   * under a row lock (the scheduler's fire waits, or is waited for); null when
   * not found.
   */
  update(
    workspaceId: string,
    id: string,
    change: (current: ScheduleRecord) => ScheduleWrite,
    facts: FactsOf<ScheduleRecord>,
  ): Promise<{ ok: true; schedule: ScheduleRecord } | { ok: false; reason: 'name_taken' | 'not_found' }>;
  /** Deletes a schedule and its fires; null when not found. */
  delete(workspaceId: string, id: string, facts: FactsOf<ScheduleRecord>): Promise<ScheduleRecord | null>;
  /** Records a fire now with its fact (`fire` gives both); null when the schedule is not found. */
  fire(workspaceId: string, id: string, fire: (schedule: ScheduleRecord) => { row: FireToWrite; facts: ReturnType<FactsOf<ScheduleRecord>> }): Promise<ScheduleFireRecord | null>;
  /** A schedule's fires, newest first. */
  fires(workspaceId: string, id: string, limit: number): Promise<ScheduleFireRecord[] | null>;
}
