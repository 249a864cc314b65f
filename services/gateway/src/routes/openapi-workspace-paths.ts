import { ListAgentsQuerySchema, ListAgentVersionsQuerySchema, ListRunsQuerySchema, TranscriptQuerySchema } from '@switchyard/contracts';
import {
  ERROR_RESPONSES as errors,
  jsonBody as body,
  jsonResponse as json,
  pathParameter,
  queryParameters,
  schemaRef,
  uuidParameter,
  WS_PARAMETER as ws,
} from './openapi-components';
import type { OpenApiPaths } from './openapi-components';

/** The prefix of every workspace path. */
export const WORKSPACE_BASE = '/v1/workspaces/{ws}';
const base = WORKSPACE_BASE;

const agentId = uuidParameter('id');
const conflict = (codes: string) => ({ '409': json('Error', codes) });
const unavailable = (why: string) => ({ '503': json('Error', `UNAVAILABLE: ${why}`) });
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  schema: { type: 'string' },
  description: 'the version last read (3, "3" or W/"3"); a stale one is 409. Without it the PUT applies to the latest version.',
};

/** The agent registry's paths (docs/decisions/0007-agent-registry.md). */
export function agentPaths(): OpenApiPaths {
  const nameOrVersion = conflict('AGENT_VERSION_CONFLICT (stale If-Match) or AGENT_NAME_TAKEN');
  return {
    [`${base}/agents`]: {
      post: { operationId: 'createAgent', summary: 'Create an agent (version 1)', parameters: [ws], requestBody: body('AgentSpec'), responses: { '201': json('Agent', 'created; ETag is the version'), ...errors, ...nameOrVersion } },
      get: { operationId: 'listAgents', summary: 'List live agents in creation order', parameters: [ws, ...queryParameters(ListAgentsQuerySchema)], responses: { '200': json('ListAgentsResponse', 'a page of agents'), ...errors } },
    },
    [`${base}/agents/{id}`]: {
      get: { operationId: 'getAgent', summary: 'A live agent with its latest version (a deleted agent is 404; its versions and runs stay readable)', parameters: [ws, agentId], responses: { '200': json('Agent', 'the agent; ETag is the version'), ...errors } },
      put: {
        operationId: 'updateAgent',
        summary: 'Save the next immutable version (the whole spec); a spec identical to the latest makes no version',
        parameters: [ws, agentId, ifMatch],
        requestBody: body('AgentSpec'),
        responses: { '200': json('Agent', 'the new version, or the current one when nothing changed'), ...errors, ...nameOrVersion },
      },
      delete: { operationId: 'deleteAgent', summary: 'Disable and hide the agent (its versions and runs stay readable; the name is freed)', parameters: [ws, agentId], responses: { '204': { description: 'deleted' }, ...errors } },
    },
    [`${base}/agents/{id}/enable`]: {
      post: {
        operationId: 'enableAgent',
        summary: 'Enable (idempotent). An agent with an evalGate needs a passing eval run of the version that runs: else 409 EVAL_GATE naming the failing cases, unless an admin overrides with a reason (records agent.eval_gate_overridden)',
        parameters: [ws, agentId],
        requestBody: { required: false, content: { 'application/json': { schema: schemaRef('EnableAgentRequest') } } },
        responses: { '200': json('Agent', 'the agent'), ...errors, '409': json('Error', 'EVAL_GATE') },
      },
    },
    [`${base}/agents/{id}/disable`]: { post: { operationId: 'disableAgent', summary: 'Disable (idempotent)', parameters: [ws, agentId], responses: { '200': json('Agent', 'the agent'), ...errors } } },
    [`${base}/agents/{id}/versions`]: {
      get: {
        operationId: 'listAgentVersions',
        summary: 'Versions in ascending order, without specs (deleted agents included)',
        parameters: [ws, agentId, ...queryParameters(ListAgentVersionsQuerySchema)],
        responses: { '200': json('ListAgentVersionsResponse', 'a page of versions'), ...errors },
      },
    },
    [`${base}/agents/{id}/versions/{version}`]: {
      get: {
        operationId: 'getAgentVersion',
        summary: 'One version with its spec (deleted agents included)',
        parameters: [ws, agentId, pathParameter('version', { type: 'integer', minimum: 1 })],
        responses: { '200': json('AgentVersion', 'the version'), ...errors },
      },
    },
  };
}

/** The run ledger's and the kill switch's paths (docs/decisions/0008-run-ledger.md). */
export function runPaths(): OpenApiPaths {
  const runId = uuidParameter('id');
  const created = json('Run', 'the new run, queued; Location is its URL');
  return {
    [`${base}/runs`]: {
      get: { operationId: 'listRuns', summary: 'List runs, newest first (by id: UUIDv7)', parameters: [ws, ...queryParameters(ListRunsQuerySchema)], responses: { '200': json('ListRunsResponse', 'a page of runs'), ...errors } },
    },
    [`${base}/runs/{id}`]: { get: { operationId: 'getRun', summary: 'One run', parameters: [ws, runId], responses: { '200': json('Run', 'the run'), ...errors } } },
    [`${base}/runs/{id}/stop`]: {
      post: {
        operationId: 'stopRun',
        summary:
          'Stop a run (member): queued or awaiting approval → cancelled now (pending approvals closed); running → cancelled by the runner at its next step. ' +
          'With cascade (default true) every run it caused, transitively, too (docs/decisions/0028-causal-stop.md)',
        parameters: [ws, runId],
        requestBody: { required: false, content: { 'application/json': { schema: schemaRef('StopRunRequest') } } },
        responses: {
          '200': json('StopRunResponse', 'everything stopped is cancelled'),
          '202': json('StopRunResponse', 'a runner cancels some of it at its next step'),
          ...errors,
          ...conflict('RUN_NOT_ACTIVE: it and every run it caused have already ended'),
        },
      },
    },
    [`${base}/runs/{id}/retry`]: {
      post: {
        operationId: 'retryRun',
        summary: "A new run of an ended run's agent (latest version) for the same fact or input (member)",
        parameters: [ws, runId],
        responses: { '201': created, ...errors, ...conflict('RUN_NOT_FINISHED, AGENT_DISABLED or AGENTS_PAUSED'), ...unavailable('could not enqueue (the new run is failed)') },
      },
    },
    [`${base}/agents/{id}/runs`]: {
      post: {
        operationId: 'startRun',
        summary: "A manual run of the agent's latest version (member)",
        parameters: [ws, agentId],
        requestBody: body('StartRunRequest'),
        responses: { '201': created, ...errors, ...conflict('AGENT_DISABLED or AGENTS_PAUSED'), ...unavailable('could not enqueue (the new run is failed)') },
      },
    },
    [`${base}/settings`]: {
      get: { operationId: 'getSettings', summary: 'Workspace settings (the kill switch, approvals, retention)', parameters: [ws], responses: { '200': json('WorkspaceSettings', 'the settings'), ...errors } },
      put: {
        operationId: 'putSettings',
        summary: 'Save the settings named (admin; the others keep their values); records workspace.settings_changed',
        parameters: [ws],
        requestBody: body('PutSettingsRequest'),
        responses: { '200': json('WorkspaceSettings', 'the settings as saved'), ...errors },
      },
    },
  };
}

/** Secrets, transcripts and steering (docs/decisions/0011-secrets-transcript-steering.md). */
export function agentLoopPaths(): OpenApiPaths {
  const secretName = pathParameter('name', { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]*$', maxLength: 100 });
  const noKey = unavailable('SECRETS_KEY is not configured on the gateway');
  return {
    [`${base}/secrets`]: {
      get: { operationId: 'listSecrets', summary: 'List secret names and dates, never values (member)', parameters: [ws], responses: { '200': json('ListSecretsResponse', 'the secrets by name'), ...errors, ...noKey } },
    },
    [`${base}/secrets/{name}`]: {
      put: {
        operationId: 'putSecret',
        summary: 'Create or replace a secret (admin; write-only: the value is never returned)',
        parameters: [ws, secretName],
        requestBody: body('PutSecretRequest'),
        responses: { '201': json('SecretInfo', 'created'), '200': json('SecretInfo', 'replaced'), ...errors, ...noKey },
      },
      delete: { operationId: 'deleteSecret', summary: 'Delete a secret (admin)', parameters: [ws, secretName], responses: { '204': { description: 'deleted' }, ...errors, ...noKey } },
    },
    [`${base}/runs/{id}/transcript`]: {
      get: {
        operationId: 'getTranscript',
        summary: "A run's transcript in seq order (viewer)",
        parameters: [ws, uuidParameter('id'), ...queryParameters(TranscriptQuerySchema, { after: 'the next of the previous page' })],
        responses: { '200': json('TranscriptResponse', 'a page of entries'), ...errors },
      },
    },
    [`${base}/runs/{id}/trace`]: {
      get: {
        operationId: 'getRunTrace',
        summary: "A run as a tree of spans: model calls, tool calls, approvals, waits, notices (viewer; decision 0057)",
        parameters: [ws, uuidParameter('id')],
        responses: { '200': json('RunTrace', 'the run span and its children'), ...errors },
      },
    },
    [`${base}/sessions/{id}/messages`]: {
      post: {
        operationId: 'postSessionMessage',
        summary: "Put a message in the session's mailbox; the run reads it at its next step (member)",
        parameters: [ws, uuidParameter('id')],
        requestBody: body('PostSessionMessageRequest'),
        responses: {
          '202': json('PostSessionMessageResponse', 'accepted: the envelope id'),
          ...errors,
          ...conflict('SESSION_NOT_ACTIVE: every run of the session has ended'),
          ...unavailable('the mailbox could not be written'),
        },
      },
    },
  };
}
