import { z } from 'zod';
import { DelegateToAgentToolInputSchema } from './collaborators';
import { CreateTaskRequestSchema, ListTasksQuerySchema, TaskIdSchema, UpdateTaskToolInputSchema } from './tasks';

/*
 * Inputs of the platform tools of the task ledger and of delegation: the REST
 * bodies and queries of the same operations, with JSON numbers and booleans
 * (a tool call is JSON, not a query string).
 */

/** `create_task`: like `POST /tasks`. */
export const CreateTaskToolInputSchema = CreateTaskRequestSchema;
/** `list_tasks`: like `GET /tasks`. */
export const ListTasksToolInputSchema = ListTasksQuerySchema.omit({ blocked: true }).extend({
  blocked: z.boolean().optional(),
  /** @defaultValue 50 */
  limit: z.number().int().min(1).max(200).default(50),
});
/** `get_task`, `claim_task`: one task by id. */
export const TaskRefToolInputSchema = z.strictObject({ id: TaskIdSchema });

/** The team tools' input schemas by name (merged into PLATFORM_TOOL_INPUT_SCHEMAS). */
export const TEAM_TOOL_INPUT_SCHEMAS = {
  create_task: CreateTaskToolInputSchema,
  list_tasks: ListTasksToolInputSchema,
  get_task: TaskRefToolInputSchema,
  update_task: UpdateTaskToolInputSchema,
  claim_task: TaskRefToolInputSchema,
  complete_task: TaskRefToolInputSchema,
  delegate_to_agent: DelegateToAgentToolInputSchema,
} as const;
