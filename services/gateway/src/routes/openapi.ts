import { ListEventsQuerySchema, PLATFORM_TOOL_NAMES, StreamQuerySchema } from '@switchyard/contracts';
import {
  componentSchemas,
  ERROR_RESPONSES as errors,
  jsonBody as body,
  jsonResponse as json,
  queryParameters,
  uuidParameter,
  WS_PARAMETER as ws,
  type OpenApiPaths,
} from './openapi-components';
import { approvalPaths } from './openapi-approval-paths';
import { tryPaths } from './openapi-try-paths';
import { agentLoopPaths, agentPaths, runPaths, WORKSPACE_BASE as base } from './openapi-workspace-paths';
import { teamPaths } from './openapi-team-paths';
import { notificationPaths } from './openapi-notification-paths';
import { teammatePaths } from './openapi-teammate-paths';
import { webhookPaths } from './openapi-webhook-paths';
import { schedulePaths } from './openapi-schedule-paths';
import { backfillPaths } from './openapi-backfill-paths';
import { auditPaths } from './openapi-audit-paths';
import { overviewPaths } from './openapi-overview-paths';
import { templatePaths } from './openapi-template-paths';
import { versionPaths } from './openapi-version-paths';
import { peoplePaths } from './openapi-people-paths';
import { agentMessagePaths } from './openapi-agent-message-paths';

// Written beside the components so that the path files need nothing of this one (no import cycle).
export type { OpenApiOperation, OpenApiPaths } from './openapi-components';

const untyped = (description: string, contentType: string) => ({ description, content: { [contentType]: { schema: { type: 'string' } } } });

/** The operations outside the workspaces: health, this document, whoami and `/mcp` (`/metrics` is on the health port). */
function platformPaths(): OpenApiPaths {
  return {
    '/healthz': { get: { operationId: 'getHealth', summary: 'Liveness: the process answers', security: [], responses: { '200': { description: 'alive' } } } },
    '/readyz': {
      get: { operationId: 'getReadiness', summary: 'Readiness: Redis and PostgreSQL answer', security: [], responses: { '200': { description: 'ready' }, '503': { description: 'a dependency is down' } } },
    },
    '/v1/openapi.json': { get: { operationId: 'getOpenApi', summary: 'This document', security: [], responses: { '200': { description: 'the OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } } } },
    '/v1/whoami': {
      get: {
        operationId: 'whoAmI',
        summary: "The bearer token's workspace, role and token id (and, for a run's agent token, its agent and run)",
        responses: { '200': json('WhoAmIResponse', 'the token'), '401': json('Error', 'UNAUTHENTICATED'), '429': json('Error', 'RATE_LIMITED') },
      },
    },
    '/v1/session': {
      post: {
        operationId: 'openUiSession',
        summary:
          'Web UI sign-in: exchange an API token for an HttpOnly, SameSite=Strict session cookie (sy_session). With the cookie, every mutating request carries the x-csrf-token header (403 CSRF_TOKEN_INVALID otherwise); decision 0029',
        security: [],
        requestBody: body('CreateUiSessionRequest'),
        responses: { '201': json('UiSessionResponse', 'signed in; Set-Cookie: sy_session'), '400': json('Error', 'VALIDATION_FAILED'), '401': json('Error', 'UNAUTHENTICATED'), '403': json('Error', "FORBIDDEN: a run's agent token") },
      },
      get: {
        operationId: 'getUiSession',
        summary: "The cookie's session: its CSRF token, expiry and who it acts as",
        security: [{ session: [] }],
        responses: { '200': json('UiSessionResponse', 'the session'), '401': json('Error', 'UNAUTHENTICATED') },
      },
      delete: {
        operationId: 'closeUiSession',
        summary: 'Sign out: the session is revoked and its cookie cleared (x-csrf-token required)',
        security: [{ session: [] }],
        responses: { '204': { description: 'signed out' }, '401': json('Error', 'UNAUTHENTICATED'), '403': json('Error', 'CSRF_TOKEN_INVALID') },
      },
    },
    '/mcp': {
      post: {
        operationId: 'callMcp',
        summary:
          `The platform MCP server (Streamable HTTP, stateless, JSON-RPC 2.0): ${PLATFORM_TOOL_NAMES.join(', ')} — tools/list shows only the tools the token's role may call. ` +
          "Bearer: an API token or a run's agent token (sya_…); the workspace is the token's (docs/decisions/0014-platform-mcp-and-agent-tokens.md)",
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'a JSON-RPC request or notification' } } } },
        responses: {
          '200': { description: 'the JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } },
          '202': { description: 'a notification, accepted' },
          '401': json('Error', 'UNAUTHENTICATED'),
          '403': { description: 'the Host header is not in GATEWAY_MCP_ALLOWED_HOSTS (DNS-rebinding protection)' },
          '429': json('Error', 'RATE_LIMITED'),
        },
      },
    },
  };
}

/** Facts, the live stream and tokens. */
function factAndTokenPaths(): OpenApiPaths {
  return {
    [`${base}/events`]: {
      post: {
        operationId: 'postEvent',
        summary: 'Record a fact',
        parameters: [ws],
        requestBody: body('PostEventRequest'),
        responses: { '202': json('PostEventResponse', 'accepted'), '200': json('PostEventResponse', 'idempotencyKey seen: the original id'), ...errors },
      },
      get: {
        operationId: 'listEvents',
        summary: 'List facts: oldest first after a cursor (after=0: from the oldest kept), or newest first (order=desc) paging back with before',
        parameters: [
          ws,
          ...queryParameters(ListEventsQuerySchema, {
            after: 'a seq: only facts after it (paging forward: the nextCursor of the previous page)',
            kind: 'kind glob: * one segment, ** any',
            order: 'asc (default): oldest first; desc: newest first',
            before: 'a seq: only facts before it (paging back with order=desc: the nextCursor of the previous page)',
          }),
        ],
        responses: { '200': json('ListEventsResponse', 'a page of facts'), '410': json('Error', 'CURSOR_EXPIRED: after is behind the retention horizon; details.oldestSeq is the oldest seq kept'), ...errors },
      },
    },
    [`${base}/events:batch`]: {
      post: {
        operationId: 'postEventBatch',
        summary: 'Record up to 500 facts',
        parameters: [ws],
        requestBody: body('PostEventBatchRequest'),
        responses: { '202': json('PostEventBatchResponse', 'accepted'), '200': json('PostEventBatchResponse', 'all were duplicates'), ...errors },
      },
    },
    [`${base}/events/{id}`]: {
      get: { operationId: 'getEvent', summary: 'One fact', parameters: [ws, uuidParameter('id')], responses: { '200': json('Fact', 'the fact'), ...errors } },
    },
    [`${base}/events/{id}/activations`]: {
      get: {
        operationId: 'getEventActivations',
        summary: 'Why the fact did or did not activate each agent: its runs, the guard that skipped it, or the trigger clause that failed (decision 0034)',
        parameters: [ws, uuidParameter('id')],
        responses: { '200': json('EventActivationsResponse', 'every agent of the workspace with its outcome'), ...errors },
      },
    },
    [`${base}/stream`]: {
      get: {
        operationId: 'streamEvents',
        summary: 'Server-Sent Events of the workspace facts; id = seq; resume with Last-Event-ID',
        parameters: [ws, ...queryParameters(StreamQuerySchema), { name: 'Last-Event-ID', in: 'header', schema: { type: 'integer' } }],
        responses: { '200': untyped('text/event-stream', 'text/event-stream'), '410': json('Error', 'CURSOR_EXPIRED: Last-Event-ID or after is behind the retention horizon; details.oldestSeq is the oldest seq kept'), ...errors },
      },
    },
    [`${base}/stream-tickets`]: {
      post: { operationId: 'createStreamTicket', summary: 'A single-use ticket for EventSource', parameters: [ws], responses: { '201': json('StreamTicketResponse', 'ticket'), ...errors } },
    },
    [`${base}/tokens`]: {
      post: {
        operationId: 'createToken',
        summary: 'Create a token (admin), optionally expiring (expiresAt or ttlSeconds)',
        parameters: [ws],
        requestBody: body('CreateTokenRequest'),
        responses: { '201': json('CreatedToken', 'the token, shown once'), ...errors },
      },
      get: { operationId: 'listTokens', summary: 'List tokens with their expiry (admin)', parameters: [ws], responses: { '200': json('ListTokensResponse', 'tokens'), ...errors } },
    },
    [`${base}/tokens/{id}`]: {
      delete: { operationId: 'revokeToken', summary: 'Revoke a token (admin)', parameters: [ws, uuidParameter('id')], responses: { '204': { description: 'revoked' }, ...errors } },
    },
  };
}

/**
 * Every operation the gateway serves, by path and method: the one list the
 * OpenAPI document describes and the `405`'s `Allow` is derived from (a test
 * checks it against the routes express serves).
 */
export function gatewayPaths(): OpenApiPaths {
  return { ...platformPaths(), ...factAndTokenPaths(), ...agentPaths(), ...runPaths(), ...agentLoopPaths(), ...approvalPaths(), ...tryPaths(), ...teamPaths(), ...teammatePaths(), ...notificationPaths(), ...webhookPaths(), ...auditPaths(), ...overviewPaths(), ...versionPaths(), ...peoplePaths(), ...agentMessagePaths(), ...schedulePaths(), ...backfillPaths(), ...templatePaths() };
}

/**
 * The document's one server: `/`, a URL relative to where the document was
 * fetched (OpenAPI 3.1 §4.8.5), so it names the scheme, host and port the
 * client reached — behind a proxy too — without the gateway trusting a Host
 * or X-Forwarded-* header or knowing its public address (decision 0043).
 */
export const OPENAPI_SERVERS = [{ url: '/', description: 'the origin this document was fetched from (every path starts at its root: /v1/…, /mcp, /healthz)' }];

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the handlers
 * parse with, so the document cannot drift from the code.
 */
export function buildOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard API', version: '0.1.0' },
    servers: OPENAPI_SERVERS,
    components: { schemas: componentSchemas(), securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, session: { type: 'apiKey', in: 'cookie', name: 'sy_session' } } },
    security: [{ bearer: [] }, { session: [] }],
    paths: gatewayPaths(),
  };
}
