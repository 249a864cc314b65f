import { z } from 'zod';
import {
  AgentResponseSchema,
  AgentVersionResponseSchema,
  CreateAgentRequestSchema,
  CreatedTokenSchema,
  CreateTokenRequestSchema,
  ErrorBodySchema,
  FactSchema,
  ListEventsResponseSchema,
  ListSecretsResponseSchema,
  ListAgentsResponseSchema,
  ListRunsResponseSchema,
  ListAgentVersionsResponseSchema,
  ListTokensResponseSchema,
  PostEventBatchRequestSchema,
  PostEventBatchResponseSchema,
  PostEventRequestSchema,
  PostEventResponseSchema,
  PostSessionMessageRequestSchema,
  PostSessionMessageResponseSchema,
  PutSecretRequestSchema,
  RunSchema,
  SecretInfoSchema,
  StartRunRequestSchema,
  StreamTicketResponseSchema,
  TranscriptResponseSchema,
  UpdateAgentRequestSchema,
  WorkspaceSettingsSchema,
} from '@switchyard/contracts';

const schemas = {
  Error: ErrorBodySchema,
  Fact: FactSchema,
  PostEventRequest: PostEventRequestSchema,
  PostEventResponse: PostEventResponseSchema,
  PostEventBatchRequest: PostEventBatchRequestSchema,
  PostEventBatchResponse: PostEventBatchResponseSchema,
  ListEventsResponse: ListEventsResponseSchema,
  CreateTokenRequest: CreateTokenRequestSchema,
  CreatedToken: CreatedTokenSchema,
  ListTokensResponse: ListTokensResponseSchema,
  StreamTicketResponse: StreamTicketResponseSchema,
  CreateAgentRequest: CreateAgentRequestSchema,
  UpdateAgentRequest: UpdateAgentRequestSchema,
  Agent: AgentResponseSchema,
  ListAgentsResponse: ListAgentsResponseSchema,
  AgentVersion: AgentVersionResponseSchema,
  ListAgentVersionsResponse: ListAgentVersionsResponseSchema,
  Run: RunSchema,
  ListRunsResponse: ListRunsResponseSchema,
  StartRunRequest: StartRunRequestSchema,
  WorkspaceSettings: WorkspaceSettingsSchema,
  PutSecretRequest: PutSecretRequestSchema,
  SecretInfo: SecretInfoSchema,
  ListSecretsResponse: ListSecretsResponseSchema,
  TranscriptResponse: TranscriptResponseSchema,
  PostSessionMessageRequest: PostSessionMessageRequestSchema,
  PostSessionMessageResponse: PostSessionMessageResponseSchema,
};

const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof schemas, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const errors = Object.fromEntries(
  ['400', '401', '403', '404', '413', '415', '429'].map((status) => [status, json('Error', 'error')]),
);
const ws = { name: 'ws', in: 'path', required: true, schema: { type: 'string' }, description: 'workspace slug' };
const body = (name: keyof typeof schemas) => ({ required: true, content: { 'application/json': { schema: ref(name) } } });
const agentId = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const page = (after: Record<string, unknown>) => [
  { name: 'after', in: 'query', schema: after, description: 'the nextCursor of the previous page' },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200 } },
];
const conflict = { '409': json('Error', 'AGENT_VERSION_CONFLICT (stale If-Match) or AGENT_NAME_TAKEN') };
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  schema: { type: 'string' },
  description: 'the version last read (3, "3" or W/"3"); a stale one is 409. Without it the PUT applies to the latest version.',
};

/** The agent registry's paths (issue 3). */
function agentPaths(base: string): Record<string, unknown> {
  return {
    [`${base}/agents`]: {
      post: { summary: 'Create an agent (version 1)', parameters: [ws], requestBody: body('CreateAgentRequest'), responses: { '201': json('Agent', 'created; ETag is the version'), ...errors, ...conflict } },
      get: { summary: 'List live agents in creation order', parameters: [ws, ...page({ type: 'string', format: 'uuid' })], responses: { '200': json('ListAgentsResponse', 'a page of agents'), ...errors } },
    },
    [`${base}/agents/{id}`]: {
      get: { summary: 'An agent with its latest version', parameters: [ws, agentId], responses: { '200': json('Agent', 'the agent; ETag is the version'), ...errors } },
      put: { summary: 'Save the next immutable version (the whole spec)', parameters: [ws, agentId, ifMatch], requestBody: body('UpdateAgentRequest'), responses: { '200': json('Agent', 'the new version'), ...errors, ...conflict } },
      delete: { summary: 'Disable and hide the agent (its versions and runs stay; the name is freed)', parameters: [ws, agentId], responses: { '204': { description: 'deleted' }, ...errors } },
    },
    [`${base}/agents/{id}/enable`]: { post: { summary: 'Enable (idempotent)', parameters: [ws, agentId], responses: { '200': json('Agent', 'the agent'), ...errors } } },
    [`${base}/agents/{id}/disable`]: { post: { summary: 'Disable (idempotent)', parameters: [ws, agentId], responses: { '200': json('Agent', 'the agent'), ...errors } } },
    [`${base}/agents/{id}/versions`]: {
      get: { summary: 'Versions in ascending order, without specs', parameters: [ws, agentId, ...page({ type: 'integer', minimum: 0 })], responses: { '200': json('ListAgentVersionsResponse', 'a page of versions'), ...errors } },
    },
    [`${base}/agents/{id}/versions/{version}`]: {
      get: {
        summary: 'One version with its spec',
        parameters: [ws, agentId, { name: 'version', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: { '200': json('AgentVersion', 'the version'), ...errors },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the handlers
 * parse with (z.toJSONSchema), so the document cannot drift from the code.
 */
export function buildOpenApi(): Record<string, unknown> {
  const components = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })]),
  );
  const base = '/v1/workspaces/{ws}';
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard API', version: '0.1.0' },
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths: {
      [`${base}/events`]: {
        post: { summary: 'Record a fact', parameters: [ws], requestBody: body('PostEventRequest'), responses: { '202': json('PostEventResponse', 'accepted'), '200': json('PostEventResponse', 'idempotencyKey seen: the original id'), ...errors } },
        get: {
          summary: 'List facts after a cursor',
          parameters: [
            ws,
            { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 } },
            { name: 'kind', in: 'query', schema: { type: 'string' }, description: 'kind glob: * one segment, ** any' },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          ],
          responses: { '200': json('ListEventsResponse', 'a page of facts'), ...errors },
        },
      },
      [`${base}/events:batch`]: {
        post: { summary: 'Record up to 500 facts', parameters: [ws], requestBody: body('PostEventBatchRequest'), responses: { '202': json('PostEventBatchResponse', 'accepted'), '200': json('PostEventBatchResponse', 'all were duplicates'), ...errors } },
      },
      [`${base}/events/{id}`]: {
        get: { summary: 'One fact', parameters: [ws, { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }], responses: { '200': json('Fact', 'the fact'), ...errors } },
      },
      [`${base}/stream`]: {
        get: {
          summary: 'Server-Sent Events of the workspace facts; id = seq; resume with Last-Event-ID',
          parameters: [ws, { name: 'kind', in: 'query', schema: { type: 'string' } }, { name: 'ticket', in: 'query', schema: { type: 'string' } }, { name: 'Last-Event-ID', in: 'header', schema: { type: 'integer' } }],
          responses: { '200': { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors },
        },
      },
      [`${base}/stream-tickets`]: { post: { summary: 'A single-use ticket for EventSource', parameters: [ws], responses: { '201': json('StreamTicketResponse', 'ticket'), ...errors } } },
      [`${base}/tokens`]: {
        post: { summary: 'Create a token (admin)', parameters: [ws], requestBody: body('CreateTokenRequest'), responses: { '201': json('CreatedToken', 'the token, shown once'), ...errors } },
        get: { summary: 'List tokens (admin)', parameters: [ws], responses: { '200': json('ListTokensResponse', 'tokens'), ...errors } },
      },
      [`${base}/tokens/{id}`]: { delete: { summary: 'Revoke a token (admin)', parameters: [ws, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '204': { description: 'revoked' }, ...errors } } },
      ...agentPaths(base),
      ...runPaths(base),
      '/mcp': {
        post: {
          summary:
            "The platform MCP server (Streamable HTTP, stateless, JSON-RPC 2.0): list_events, get_event, emit_event, list_runs, get_run, list_agents, get_agent. Bearer: an API token or a run's agent token (sya_…); the workspace is the token's (docs/decisions/0014-platform-mcp-and-agent-tokens.md)",
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
      ...agentLoopPaths(base),
    },
  };
}

/** The run ledger's and the kill switch's paths (issue 3; docs/decisions/0008-run-ledger.md). */
function runPaths(base: string): Record<string, unknown> {
  const runId = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const runConflict = (codes: string) => ({ '409': json('Error', codes) });
  const created = json('Run', 'the new run, queued; Location is its URL');
  return {
    [`${base}/runs`]: {
      get: {
        summary: 'List runs, newest first (by id: UUIDv7)',
        parameters: [
          ws,
          { name: 'agentId', in: 'query', schema: { type: 'string', format: 'uuid' } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: RunSchema.shape.status.options } },
          ...page({ type: 'string', format: 'uuid' }),
        ],
        responses: { '200': json('ListRunsResponse', 'a page of runs'), ...errors },
      },
    },
    [`${base}/runs/{id}`]: { get: { summary: 'One run', parameters: [ws, runId], responses: { '200': json('Run', 'the run'), ...errors } } },
    [`${base}/runs/{id}/stop`]: {
      post: {
        summary: 'Stop a run (member): queued → cancelled now; running or awaiting approval → cancelled by the runner at its next step',
        parameters: [ws, runId],
        responses: { '200': json('Run', 'cancelled'), '202': json('Run', 'stop requested'), ...errors, ...runConflict('RUN_NOT_ACTIVE: it has already ended') },
      },
    },
    [`${base}/runs/{id}/retry`]: {
      post: {
        summary: "A new run of an ended run's agent (latest version) for the same fact (member)",
        parameters: [ws, runId],
        responses: { '201': created, ...errors, ...runConflict('RUN_NOT_FINISHED, AGENT_DISABLED or AGENTS_PAUSED'), '503': json('Error', 'UNAVAILABLE: could not enqueue (the new run is failed)') },
      },
    },
    [`${base}/agents/{id}/runs`]: {
      post: {
        summary: "A manual run of the agent's latest version (member)",
        parameters: [ws, agentId],
        requestBody: body('StartRunRequest'),
        responses: { '201': created, ...errors, ...runConflict('AGENT_DISABLED or AGENTS_PAUSED'), '503': json('Error', 'UNAVAILABLE: could not enqueue (the new run is failed)') },
      },
    },
    [`${base}/settings`]: {
      get: { summary: 'Workspace settings (the kill switch)', parameters: [ws], responses: { '200': json('WorkspaceSettings', 'the settings'), ...errors } },
      put: {
        summary: 'Save the settings (admin); records workspace.settings_changed',
        parameters: [ws],
        requestBody: body('WorkspaceSettings'),
        responses: { '200': json('WorkspaceSettings', 'the settings as saved'), ...errors },
      },
    },
  };
}

/** Secrets, transcripts and steering (issue 4; docs/decisions/0011-secrets-transcript-steering.md). */
function agentLoopPaths(base: string): Record<string, unknown> {
  const secretName = { name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]*$', maxLength: 100 } };
  const uuid = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
  const noKey = { '503': json('Error', 'UNAVAILABLE: SECRETS_KEY is not configured on the gateway') };
  return {
    [`${base}/secrets`]: {
      get: { summary: 'List secret names and dates, never values (member)', parameters: [ws], responses: { '200': json('ListSecretsResponse', 'the secrets by name'), ...errors, ...noKey } },
    },
    [`${base}/secrets/{name}`]: {
      put: {
        summary: 'Create or replace a secret (admin; write-only: the value is never returned)',
        parameters: [ws, secretName],
        requestBody: body('PutSecretRequest'),
        responses: { '201': json('SecretInfo', 'created'), '200': json('SecretInfo', 'replaced'), ...errors, ...noKey },
      },
      delete: { summary: 'Delete a secret (admin)', parameters: [ws, secretName], responses: { '204': { description: 'deleted' }, ...errors, ...noKey } },
    },
    [`${base}/runs/{id}/transcript`]: {
      get: {
        summary: "A run's transcript in seq order (viewer)",
        parameters: [
          ws,
          uuid('id'),
          { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'the next of the previous page' },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
        ],
        responses: { '200': json('TranscriptResponse', 'a page of entries'), ...errors },
      },
    },
    [`${base}/sessions/{id}/messages`]: {
      post: {
        summary: "Put a message in the session's mailbox; the run reads it at its next step (member)",
        parameters: [ws, uuid('id')],
        requestBody: body('PostSessionMessageRequest'),
        responses: {
          '202': json('PostSessionMessageResponse', 'accepted: the envelope id'),
          ...errors,
          '409': json('Error', 'SESSION_NOT_ACTIVE: every run of the session has ended'),
          '503': json('Error', 'UNAVAILABLE: the mailbox could not be written'),
        },
      },
    },
  };
}
