import { z } from 'zod';
import { AgentMessageContentSchema, AgentMessageThreadSchema, AgentMessageTopicSchema } from './agent-messages';
import { ScriptStepSchema } from './agents';

/**
 * The awareness pilot's preregistered tasks (issue 34 §7, `pilot/tasks.json`):
 * data, read by `npm run pilot:awareness`. Each task has its class, the
 * prompt its run starts with, the oracle that verifies the run's final
 * answer, the peer note a producer posts while it runs, and the steps the
 * scripted model takes for it (CI runs the pilot with the scripted model).
 */
export const PilotTaskSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,40}$/),
  class: z.enum(['qa', 'debug', 'impl']),
  prompt: z.string().min(1).max(8_000),
  /** Verified when the final answer contains this text (case-insensitive). */
  oracle: z.strictObject({ contains: z.string().min(1).max(500) }),
  note: z.strictObject({ thread: AgentMessageThreadSchema, topic: AgentMessageTopicSchema, content: AgentMessageContentSchema }),
  script: z.array(ScriptStepSchema).min(1).max(10),
});
export type PilotTask = z.infer<typeof PilotTaskSchema>;

/** The whole file: 30 tasks, 10 of each class, ids unique. */
export const PilotTasksFileSchema = z
  .strictObject({ version: z.literal(1), tasks: z.array(PilotTaskSchema).length(30) })
  .refine((file) => new Set(file.tasks.map((t) => t.id)).size === file.tasks.length, { message: 'task ids are unique' })
  .refine((file) => ['qa', 'debug', 'impl'].every((c) => file.tasks.filter((t) => t.class === c).length === 10), { message: '10 tasks of each class' });
