import { z } from 'zod';
import { WebhookNameSchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const { $schema: _dialect, ...nameSchema } = z.toJSONSchema(WebhookNameSchema, { io: 'input' });
const name = pathParameter('name', nameSchema, "the webhook's name (unique in the workspace)");
const unavailable = { '503': json('Error', 'UNAVAILABLE: SECRETS_KEY is not configured on the gateway') };

/** A delivery's headers, as a sender sends them (which ones count depends on the webhook's verifier). */
const deliveryHeaders = [
  { name: 'X-Hub-Signature-256', in: 'header', schema: { type: 'string' }, description: 'github: sha256= and the hex HMAC-SHA256 of the body under the secret' },
  { name: 'X-GitHub-Delivery', in: 'header', schema: { type: 'string' }, description: 'github: the delivery id (the idempotency key)' },
  { name: 'X-GitHub-Event', in: 'header', schema: { type: 'string' }, description: 'github: the event, the kind after github. by default' },
];

/** Inbound webhooks (docs/webhooks.md): admins configure them; senders post deliveries with no platform token. */
export function webhookPaths(): OpenApiPaths {
  return {
    [`${base}/webhooks`]: {
      get: { operationId: 'listWebhooks', summary: 'The workspace’s inbound webhooks (admin; never their secrets)', parameters: [ws], responses: { '200': json('ListWebhooksResponse', 'the webhooks by name'), ...errors, ...unavailable } },
    },
    [`${base}/webhooks/{name}`]: {
      get: { operationId: 'getWebhook', summary: 'One inbound webhook (admin; never its secret)', parameters: [ws, name], responses: { '200': json('Webhook', 'the webhook'), ...errors, ...unavailable } },
      put: {
        operationId: 'putWebhook',
        summary:
          'Create or replace an inbound webhook (admin): verifier github | hmac-sha256 | none (403 WEBHOOK_UNSIGNED_REFUSED unless WEBHOOK_ALLOW_UNSIGNED), the secret sealed with SECRETS_KEY, the kind and subject mapping; records webhook.configured',
        parameters: [ws, name],
        requestBody: body('PutWebhookRequest'),
        responses: { '201': json('Webhook', 'created'), '200': json('Webhook', 'replaced'), ...errors, ...unavailable },
      },
      delete: { operationId: 'deleteWebhook', summary: 'Delete an inbound webhook (admin); records webhook.deleted', parameters: [ws, name], responses: { '204': { description: 'deleted' }, ...errors, ...unavailable } },
      post: {
        operationId: 'deliverWebhook',
        summary:
          'A sender’s delivery (no platform token): verified over the raw body (401 WEBHOOK_SIGNATURE_INVALID, nothing recorded), then recorded as one fact — kind from the header or body path after the prefix, subject id from idPath, the body as payload, the delivery id as idempotency key (a replay answers the first fact’s id). 404 WEBHOOK_NOT_FOUND alike for an unknown workspace or name',
        security: [],
        parameters: [ws, name, ...deliveryHeaders],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'any JSON object: it becomes the fact’s payload' } } } },
        responses: {
          '202': json('PostEventResponse', 'recorded, or a replayed delivery id: the first delivery’s fact id'),
          '400': json('Error', 'VALIDATION_FAILED, MALFORMED_JSON, JSON_TOO_DEEP, BODY_ENCODING_INVALID or WEBHOOK_DELIVERY_INVALID {field, reason}'),
          '401': json('Error', 'WEBHOOK_SIGNATURE_INVALID'),
          '403': json('Error', 'WEBHOOK_UNSIGNED_REFUSED'),
          '404': json('Error', 'WEBHOOK_NOT_FOUND'),
          '405': json('Error', 'METHOD_NOT_ALLOWED'),
          '409': json('Error', 'IDEMPOTENCY_KEY_REUSED: the delivery id was recorded with another content'),
          '413': json('Error', 'PAYLOAD_TOO_LARGE'),
          '415': json('Error', 'UNSUPPORTED_MEDIA_TYPE'),
          '429': json('Error', 'RATE_LIMITED (per webhook)'),
          ...unavailable,
        },
      },
    },
  };
}
