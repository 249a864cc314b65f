import { z } from 'zod';
import { isAuditKind } from './audit-kinds';
import { KindSchema, PayloadSchema, SubjectSchema } from './facts';

/**
 * Schedules (docs/schedules.md, decision 0048): a workspace's cron or
 * fixed-interval timers; each fire is one fact, its slot the fact's
 * idempotency key.
 */

/** The kind a fire records when the schedule names none. */
export const SCHEDULE_FIRED_KIND = 'schedule.fired';

/** Kinds of the schedules' audit facts, subject `{type: "schedule", id}`. */
export const SCHEDULE_FACT_KINDS = { created: 'schedule.created', updated: 'schedule.updated', deleted: 'schedule.deleted' } as const;
export type ScheduleFactKind = (typeof SCHEDULE_FACT_KINDS)[keyof typeof SCHEDULE_FACT_KINDS];

/** Shortest interval of an `everyMs` schedule: one second. */
export const MIN_EVERY_MS = 1_000;
/** Longest interval of an `everyMs` schedule: 366 days. */
export const MAX_EVERY_MS = 366 * 86_400_000;
/** Schedules a workspace may hold. */
export const MAX_SCHEDULES_PER_WORKSPACE = 1_000;

export const ScheduleIdSchema = z.uuid();

/** A schedule's display name, unique in its workspace. */
export const ScheduleNameSchema = z
  .string()
  .min(1)
  .max(100)
  .refine((name) => ![...name].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f), { message: 'a schedule name has no control characters' });

/**
 * A five-field cron expression (minute hour day-of-month month day-of-week).
 * Its fields are checked here; whether it can ever fire is checked by the
 * cron library in the command (SCHEDULE_INVALID).
 */
export const CronExpressionSchema = z
  .string()
  .max(120)
  .regex(/^\s*\S+(\s+\S+){4}\s*$/, 'cron has five fields: minute hour day-of-month month day-of-week');

/** Whether the runtime knows an IANA time zone name. */
export function isKnownTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone (`Europe/Paris`, `UTC`). */
export const TimezoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isKnownTimezone, { message: 'unknown time zone: use an IANA name such as Europe/Paris or UTC' });

/** What a slot missed while nothing could fire does: nothing (`skip`) or one catch-up fire marked `late` (`fire_once`). */
export const MissedPolicySchema = z.enum(['skip', 'fire_once']);
export type MissedPolicy = z.infer<typeof MissedPolicySchema>;

/** The fact a fire records; `kind` defaults to `schedule.fired`, `subject` to the schedule. */
export const ScheduleEmitSchema = z.strictObject({
  kind: KindSchema.refine((kind) => !isAuditKind(kind), { message: 'this kind is recorded by the platform only (the audit trail)' }).default(SCHEDULE_FIRED_KIND),
  subject: SubjectSchema.optional(),
  payload: PayloadSchema.default({}),
});
export type ScheduleEmit = z.infer<typeof ScheduleEmitSchema>;

const timing = {
  cron: CronExpressionSchema.optional(),
  everyMs: z.number().int().min(MIN_EVERY_MS).max(MAX_EVERY_MS).optional(),
};
const exactlyOneTiming = (value: { cron?: string | undefined; everyMs?: number | undefined }) => (value.cron === undefined) !== (value.everyMs === undefined);

/** `POST /schedules`: exactly one of `cron` and `everyMs`. */
export const CreateScheduleRequestSchema = z
  .strictObject({
    name: ScheduleNameSchema,
    ...timing,
    timezone: TimezoneSchema.default('UTC'),
    enabled: z.boolean().default(true),
    emit: ScheduleEmitSchema.default({ kind: SCHEDULE_FIRED_KIND, payload: {} }),
    missed: MissedPolicySchema.default('skip'),
  })
  .refine(exactlyOneTiming, { message: 'give exactly one of cron and everyMs', path: ['cron'] });
export type CreateScheduleRequest = z.infer<typeof CreateScheduleRequestSchema>;

/** `PATCH /schedules/{id}`: the fields to change; `cron` or `everyMs` replaces the timing (not both). */
export const UpdateScheduleRequestSchema = z
  .strictObject({
    name: ScheduleNameSchema.optional(),
    ...timing,
    timezone: TimezoneSchema.optional(),
    enabled: z.boolean().optional(),
    emit: ScheduleEmitSchema.optional(),
    missed: MissedPolicySchema.optional(),
  })
  .refine((value) => value.cron === undefined || value.everyMs === undefined, { message: 'give at most one of cron and everyMs', path: ['cron'] })
  .refine((value) => Object.keys(value).length > 0, { message: 'nothing to change' });
export type UpdateScheduleRequest = z.infer<typeof UpdateScheduleRequestSchema>;

/** A schedule as the API answers it; `nextFireAt` is an instant, `nextFireLocal` the same in the schedule's zone. */
export const ScheduleSchema = z.strictObject({
  id: ScheduleIdSchema,
  name: ScheduleNameSchema,
  cron: z.string().nullable(),
  everyMs: z.number().int().nullable(),
  timezone: z.string(),
  enabled: z.boolean(),
  emit: z.strictObject({ kind: KindSchema, subject: SubjectSchema.optional(), payload: PayloadSchema }),
  missed: MissedPolicySchema,
  nextFireAt: z.iso.datetime().nullable(),
  nextFireLocal: z.string().nullable(),
  skippedSlots: z.number().int().min(0),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

/** One fire: the fact it recorded (`factId`), its slot, and whether it was a late catch-up or a manual `POST /fire`. */
export const ScheduleFireSchema = z.strictObject({
  factId: z.uuid(),
  slotAt: z.iso.datetime(),
  firedAt: z.iso.datetime(),
  late: z.boolean(),
  manual: z.boolean(),
});
export type ScheduleFire = z.infer<typeof ScheduleFireSchema>;

/** `GET /schedules/{id}/fires?limit=`: newest first. */
export const ListScheduleFiresQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** The payload every fire's fact carries under `schedule` (beside the emit's own payload fields). */
export const ScheduleFirePayloadSchema = z.strictObject({
  id: ScheduleIdSchema,
  name: ScheduleNameSchema,
  slotAt: z.iso.datetime(),
  late: z.boolean(),
  manual: z.boolean(),
});
export type ScheduleFirePayload = z.infer<typeof ScheduleFirePayloadSchema>;

/** The MCP tool `delete_schedule`'s input. */
export const DeleteScheduleToolInputSchema = z.strictObject({ id: ScheduleIdSchema });

/** The MCP tool `list_schedules`'s input: none. */
export const ListSchedulesToolInputSchema = z.strictObject({});

/** `GET /schedules`: the workspace's schedules by name. */
export const ListSchedulesResponseSchema = z.strictObject({ schedules: z.array(ScheduleSchema) });

/** `GET /schedules/{id}/fires`: newest first. */
export const ListScheduleFiresResponseSchema = z.strictObject({ fires: z.array(ScheduleFireSchema) });
