import { ListCollaboratorsQuerySchema, ListTasksQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, queryParameters, uuidParameter, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const taskId = uuidParameter('id');
const conflict = (codes: string) => ({ '409': json('Error', codes) });

/** The task ledger's and the collaborator rules' paths (decisions 0031, 0032). */
export function teamPaths(): OpenApiPaths {
  const action = (name: string, summary: string, codes: string) => ({
    [`${base}/tasks/{id}/${name}`]: {
      post: { operationId: `${name}Task`, summary, parameters: [ws, taskId], responses: { '200': json('Task', 'the task after it'), ...errors, ...conflict(codes) } },
    },
  });
  return {
    [`${base}/tasks`]: {
      post: {
        operationId: 'createTask',
        summary: 'Create a task (member); records task.created',
        parameters: [ws],
        requestBody: body('CreateTaskRequest'),
        responses: { '201': json('Task', 'the task, pending; Location is its URL'), ...errors },
      },
      get: { operationId: 'listTasks', summary: 'List tasks, oldest first (by id: UUIDv7)', parameters: [ws, ...queryParameters(ListTasksQuerySchema)], responses: { '200': json('ListTasksResponse', 'a page of tasks'), ...errors } },
    },
    [`${base}/tasks/{id}`]: {
      get: { operationId: 'getTask', summary: 'One task', parameters: [ws, taskId], responses: { '200': json('Task', 'the task'), ...errors } },
      patch: {
        operationId: 'updateTask',
        summary: "Change an open task's subject, description or blockedBy (its creator, its owner or an admin)",
        parameters: [ws, taskId],
        requestBody: body('UpdateTaskRequest'),
        responses: { '200': json('Task', 'the task after it'), ...errors, ...conflict('TASK_NOT_OPEN') },
      },
      delete: { operationId: 'deleteTask', summary: 'Delete a task (its creator or an admin); dependents lose it from blockedBy', parameters: [ws, taskId], responses: { '204': { description: 'deleted' }, ...errors } },
    },
    ...action('claim', 'Claim a pending, unblocked task: one of concurrent claims wins', 'TASK_ALREADY_CLAIMED (with the owner), TASK_BLOCKED or TASK_NOT_OPEN'),
    ...action('complete', 'Complete a task (its owner or an admin; a pending one by anyone); announces the tasks it unblocked', 'TASK_ALREADY_CLAIMED, TASK_BLOCKED or TASK_NOT_OPEN'),
    ...action('cancel', 'Cancel an open task (its creator, its owner or an admin)', 'TASK_NOT_OPEN'),
    ...action('reopen', 'Take a completed or cancelled task back to pending, without owner (its creator, its owner or an admin)', 'TASK_NOT_OPEN'),
    [`${base}/agents/{id}/collaborators`]: {
      get: {
        operationId: 'listCollaborators',
        summary: "The workspace's other live agents, each with this agent's rule toward it (enabled, disabled, none)",
        parameters: [ws, uuidParameter('id'), ...queryParameters(ListCollaboratorsQuerySchema)],
        responses: { '200': json('ListCollaboratorsResponse', 'a page of agents'), ...errors },
      },
    },
    [`${base}/agents/{id}/collaborators/{otherId}`]: {
      put: {
        operationId: 'putCollaborator',
        summary: 'Allow (enabled) or forbid delegation to the other agent (member, never an agent token); records agent.collaborator_changed',
        parameters: [ws, uuidParameter('id'), uuidParameter('otherId')],
        requestBody: body('PutCollaboratorRequest'),
        responses: { '200': json('Collaborator', 'the rule as saved'), ...errors },
      },
      delete: {
        operationId: 'deleteCollaborator',
        summary: 'Remove the rule (idempotent); a self-edge is 400 COLLABORATOR_SELF',
        parameters: [ws, uuidParameter('id'), uuidParameter('otherId')],
        responses: { '204': { description: 'removed, or there was none' }, ...errors },
      },
    },
  };
}
