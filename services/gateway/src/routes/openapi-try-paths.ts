import { ListAgentTriesQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, queryParameters, uuidParameter, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

/** Try-drive's paths (docs/decisions/0027-try-drive.md). */
export function tryPaths(): OpenApiPaths {
  return {
    [`${base}/agents/try`]: {
      post: {
        operationId: 'tryAgent',
        summary:
          "Run a draft spec or a saved agent (version) once in shadow on one of eventId, fact or input (member; an agent token only a saved agent whose spec allows it: 403 SELF_IMPROVEMENT_NOT_ALLOWED, a new draft 403 TRY_BY_AGENT_REFUSED): the platform's reads run live, every other call is a wouldHave; no facts are recorded",
        parameters: [ws],
        requestBody: body('TryAgentRequest'),
        responses: {
          '201': json('TryAgentResponse', 'the try run, queued; Location is its URL'),
          ...errors,
          '409': json('Error', 'AGENTS_PAUSED'),
          '503': json('Error', 'UNAVAILABLE: could not enqueue (the try run is failed)'),
        },
      },
    },
    [`${base}/agents/craft`]: {
      post: {
        operationId: 'craftAgent',
        summary:
          'Conversational crafting (decision 0056, member; agent tokens 403 TRY_BY_AGENT_REFUSED): one message with the canvas is a turn (a craft run) of the built-in crafting agent, in the conversation sessionId; the answer is text/event-stream: started, then one CraftEvent per accepted or refused patch, try and remark as the run records them, ending with done or error; 404 SESSION_NOT_FOUND for another\'s or unknown conversation',
        parameters: [ws],
        requestBody: body('CraftMessageRequest'),
        responses: {
          '200': { description: 'text/event-stream of CraftEvent (`event:` its type, `data:` the event)', content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/CraftEvent' } } } },
          ...errors,
          '409': json('Error', 'CRAFTING_NOT_CONFIGURED: the gateway has no CRAFT_MODEL'),
        },
      },
    },
    [`${base}/agents/{id}/tries`]: {
      get: {
        operationId: 'listAgentTries',
        summary: "Tries kept under an agent's or a draft's id, newest first, each with the exact spec it ran (viewer)",
        parameters: [ws, uuidParameter('id'), ...queryParameters(ListAgentTriesQuerySchema)],
        responses: { '200': json('ListAgentTriesResponse', 'a page of tries'), ...errors },
      },
    },
    [`${base}/runs/{id}/would-have`]: {
      get: {
        operationId: 'getRunWouldHave',
        summary: 'The calls a try run did not execute, in order (empty for other runs) (viewer)',
        parameters: [ws, uuidParameter('id')],
        responses: { '200': json('RunWouldHaveResponse', 'the captured calls'), ...errors },
      },
    },
  };
}
