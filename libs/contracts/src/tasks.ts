import { z } from 'zod';
import { ActorSchema, CausedBySchema } from './facts';

/** Task ids (UUIDv7) in paths, `blockedBy` and cursors. */
export const TaskIdSchema = z.uuid();

/** Task statuses: `pending → in_progress → completed | cancelled`; `reopen` takes an ended task back to `pending`. */
export const TaskStatusSchema = z.enum(['pending', 'in_progress', 'completed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** Most blockers one task may name (`blockedBy`). */
export const MAX_TASK_BLOCKERS = 20;
/** Longest task subject. */
export const MAX_TASK_SUBJECT_CHARS = 500;
/** Longest task description. */
export const MAX_TASK_DESCRIPTION_CHARS = 20_000;

/** Who holds a task: the member or the agent that claimed it. */
export const TaskOwnerSchema = z.strictObject({
  type: z.enum(['member', 'agent']),
  id: z.string().min(1).max(256),
});
export type TaskOwner = z.infer<typeof TaskOwnerSchema>;

const SubjectTextSchema = z.string().trim().min(1).max(MAX_TASK_SUBJECT_CHARS);
const DescriptionSchema = z.string().max(MAX_TASK_DESCRIPTION_CHARS);
/** Ids of tasks of the same workspace that must end before this one can be claimed; no duplicates. */
const BlockedBySchema = z
  .array(TaskIdSchema)
  .max(MAX_TASK_BLOCKERS)
  .refine((ids) => new Set(ids).size === ids.length, { message: 'blockedBy names a task twice' });

/** `POST /v1/workspaces/{ws}/tasks` body (and the `create_task` tool's input). */
export const CreateTaskRequestSchema = z.strictObject({
  subject: SubjectTextSchema,
  /** @defaultValue "" */
  description: DescriptionSchema.default(''),
  /** @defaultValue [] */
  blockedBy: BlockedBySchema.default([]),
});
export type CreateTaskRequest = z.infer<typeof CreateTaskRequestSchema>;

/** `PATCH /v1/workspaces/{ws}/tasks/{id}` body: the fields to change (at least one), while the task is open. */
export const UpdateTaskFieldsSchema = z.strictObject({
  subject: SubjectTextSchema.optional(),
  description: DescriptionSchema.optional(),
  /** Replaces the whole list. */
  blockedBy: BlockedBySchema.optional(),
});
const changesSomething = (body: Record<string, unknown>) => ['subject', 'description', 'blockedBy'].some((field) => body[field] !== undefined);
const NOTHING_TO_CHANGE = { message: 'name at least one of subject, description, blockedBy' };
export const UpdateTaskRequestSchema = UpdateTaskFieldsSchema.refine(changesSomething, NOTHING_TO_CHANGE);
export type UpdateTaskRequest = z.infer<typeof UpdateTaskRequestSchema>;
/** `update_task`'s input: the task's id and the fields to change. */
export const UpdateTaskToolInputSchema = UpdateTaskFieldsSchema.extend({ id: TaskIdSchema }).refine(changesSomething, NOTHING_TO_CHANGE);

/** A task as the API (and every `task.*` fact's payload) shows it. */
export const TaskSchema = z.strictObject({
  id: TaskIdSchema,
  workspace: z.string(),
  subject: z.string(),
  description: z.string(),
  status: TaskStatusSchema,
  owner: TaskOwnerSchema.nullable(),
  blockedBy: z.array(TaskIdSchema),
  /** The blockers not yet completed or cancelled: the task cannot be claimed or completed while this is not empty. */
  openBlockers: z.array(TaskIdSchema),
  /** Who created it, as the platform states it (the token's member or agent). */
  createdBy: ActorSchema,
  /** The run that created it (a run's agent token), so the loop guards see the task as that run's doing. */
  causedBy: CausedBySchema.nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  claimedAt: z.iso.datetime().nullable(),
  endedAt: z.iso.datetime().nullable(),
});
export type Task = z.infer<typeof TaskSchema>;

/** `GET /v1/workspaces/{ws}/tasks` query: oldest first by id (UUIDv7), filtered. */
export const ListTasksQuerySchema = z.strictObject({
  status: TaskStatusSchema.optional(),
  /** Only tasks held by this owner type (with `ownerId`, by this owner). */
  ownerType: TaskOwnerSchema.shape.type.optional(),
  ownerId: z.string().min(1).max(256).optional(),
  /** `true`: only tasks with open blockers; `false`: only tasks without. */
  blocked: z.enum(['true', 'false']).optional(),
  /** The last id of the previous page. */
  after: TaskIdSchema.optional(),
  /** @defaultValue 50 */
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListTasksQuery = z.infer<typeof ListTasksQuerySchema>;

/** `GET /v1/workspaces/{ws}/tasks` response. */
export const ListTasksResponseSchema = z.strictObject({
  tasks: z.array(TaskSchema),
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: TaskIdSchema.nullable(),
});

/**
 * Kinds of the task ledger's facts, subject `{type: "task", id}`, payload the
 * task after the change (TaskSchema). `created`, `completed` and `unblocked`
 * are the ones meant for triggers: new work, a result, a dependency cleared.
 */
export const TASK_FACT_KINDS = {
  created: 'task.created',
  updated: 'task.updated',
  claimed: 'task.claimed',
  completed: 'task.completed',
  cancelled: 'task.cancelled',
  reopened: 'task.reopened',
  deleted: 'task.deleted',
  /** The last open blocker of this task completed, was cancelled or deleted: it can be claimed now. */
  unblocked: 'task.unblocked',
} as const;
export type TaskFactKind = (typeof TASK_FACT_KINDS)[keyof typeof TASK_FACT_KINDS];

/** Payload of every `task.*` fact: the task after the change. */
export const TaskFactPayloadSchema = TaskSchema.omit({ workspace: true });
export type TaskFactPayload = z.infer<typeof TaskFactPayloadSchema>;
