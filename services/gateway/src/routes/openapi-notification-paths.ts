import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const mattermostCall = (summary: string, operationId: string, contentType: string) => ({
  operationId,
  summary,
  security: [],
  requestBody: { required: true, content: { [contentType]: { schema: { type: 'object' } } } },
  responses: {
    '200': { description: 'Mattermost’s answer', content: { 'application/json': { schema: { type: 'object' } } } },
    '400': json('Error', 'VALIDATION_FAILED'),
    '401': json('Error', 'INTEGRATION_SIGNATURE_INVALID'),
    '403': json('Error', 'INTEGRATION_CONTEXT_EXPIRED, INTEGRATION_USER_NOT_LINKED or FORBIDDEN (viewer)'),
  },
});

/** Notification settings and the Mattermost integration (decision 0030). */
export function notificationPaths(): OpenApiPaths {
  return {
    [`${base}/settings/notifications`]: {
      get: { operationId: 'getNotificationSettings', summary: 'The Mattermost connection and notification rules (defaults when never saved)', parameters: [ws], responses: { '200': json('NotificationSettings', 'the settings'), ...errors } },
      put: {
        operationId: 'putNotificationSettings',
        summary: 'Save the connection (credentials as workspace secret names) and rules (admin)',
        parameters: [ws],
        requestBody: body('NotificationSettings'),
        responses: { '200': json('NotificationSettings', 'saved'), ...errors },
      },
    },
    [`${base}/settings/notifications/test`]: {
      post: {
        operationId: 'testNotifications',
        summary: 'Send a test post and report Mattermost’s answer (admin)',
        parameters: [ws],
        requestBody: body('NotificationTestRequest'),
        responses: { '200': json('NotificationTestResponse', 'what Mattermost answered'), ...errors, '409': json('Error', 'NOTIFICATIONS_NOT_CONFIGURED') },
      },
    },
    [`${base}/integrations/mattermost/link-codes`]: {
      post: { operationId: 'createMattermostLinkCode', summary: 'A one-time code for `/switchyard link <code>` (10 minutes)', parameters: [ws], responses: { '201': json('MattermostLinkCodeResponse', 'the code'), ...errors } },
    },
    '/integrations/mattermost/actions': { post: mattermostCall('Mattermost’s Approve/Deny button callback (signed context, linked member)', 'mattermostAction', 'application/json') },
    '/integrations/mattermost/commands/{ws}': {
      post: { ...mattermostCall('The `/switchyard` slash command (token-verified; answers ephemeral)', 'mattermostSlashCommand', 'application/x-www-form-urlencoded'), parameters: [ws] },
    },
  };
}
