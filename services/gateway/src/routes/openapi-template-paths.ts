import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, WS_PARAMETER as ws, type OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const templateId = pathParameter('id', { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' });

/** First-party templates (docs/decisions/0049-templates.md). */
export function templatePaths(): OpenApiPaths {
  return {
    [`${base}/templates`]: {
      get: {
        operationId: 'listTemplates',
        summary: 'The first-party templates shipped with this instance: what each does and the secrets, MCP servers and notification rules it needs (viewer)',
        parameters: [ws],
        responses: { '200': json('ListTemplatesResponse', 'the templates'), ...errors },
      },
    },
    [`${base}/templates/{id}/adopt`]: {
      post: {
        operationId: 'adoptTemplate',
        summary:
          'Adopt a template (member): a DISABLED copy in this workspace with templateOrigin set (records agent.created), and a checklist of its secrets (set or missing here), MCP servers and notification rules — 404 TEMPLATE_NOT_FOUND; 409 AGENT_NAME_TAKEN',
        parameters: [ws, templateId],
        requestBody: body('AdoptTemplateRequest'),
        responses: { '201': json('AdoptTemplateResponse', 'the copy and its checklist'), ...errors, '409': json('Error', 'AGENT_NAME_TAKEN') },
      },
    },
  };
}
