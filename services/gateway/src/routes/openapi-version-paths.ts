import { ExportAgentQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, queryParameters, uuidParameter, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const agentId = uuidParameter('id');
const version = (name: string) => pathParameter(name, { type: 'integer', minimum: 1 });
const tag = pathParameter('tag', { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9._-]{0,63}$' });

/** Pins, tags, diffs and bundles of agents (docs/decisions/0046-versions-and-bundles.md). */
export function versionPaths(): OpenApiPaths {
  return {
    [`${base}/agents/{id}/pin`]: {
      put: {
        operationId: 'pinAgentVersion',
        summary: 'Pin the version new runs use (member); a rollback is a pin of an older version. Records agent.pinned',
        parameters: [ws, agentId],
        requestBody: body('PinAgentRequest'),
        responses: { '200': json('Agent', 'the agent with its pinnedVersion'), ...errors },
      },
      delete: {
        operationId: 'unpinAgentVersion',
        summary: 'Remove the pin: new runs use the latest version (member). Records agent.unpinned when there was a pin',
        parameters: [ws, agentId],
        responses: { '200': json('Agent', 'the agent, pinnedVersion null'), ...errors },
      },
    },
    [`${base}/agents/{id}/tags`]: {
      get: {
        operationId: 'listAgentTags',
        summary: "The agent's tags by name, each with the version it names (viewer)",
        parameters: [ws, agentId],
        responses: { '200': json('ListAgentTagsResponse', 'the tags'), ...errors },
      },
    },
    [`${base}/agents/{id}/versions/{version}/tags/{tag}`]: {
      put: {
        operationId: 'putAgentVersionTag',
        summary: 'Put a tag on a version, moving it from another version of the agent (member). Records agent.tagged',
        parameters: [ws, agentId, version('version'), tag],
        responses: { '200': json('ListAgentTagsResponse', "the agent's tags after the change"), ...errors },
      },
      delete: {
        operationId: 'deleteAgentVersionTag',
        summary: 'Remove a tag from the version carrying it (member; 404 AGENT_TAG_NOT_FOUND otherwise). Records agent.untagged',
        parameters: [ws, agentId, version('version'), tag],
        responses: { '200': json('ListAgentTagsResponse', "the agent's tags after the change"), ...errors },
      },
    },
    [`${base}/agents/{id}/versions/{version}/diff/{to}`]: {
      get: {
        operationId: 'diffAgentVersions',
        summary: 'What changed from one version to another: the top-level fields and a JSON Patch (RFC 6902) from the first spec to the second (viewer)',
        parameters: [ws, agentId, version('version'), version('to')],
        responses: { '200': json('AgentVersionDiffResponse', 'the diff'), ...errors },
      },
    },
    [`${base}/agents/{id}/export`]: {
      get: {
        operationId: 'exportAgents',
        summary: 'A bundle of the agent (and the agents `with` names): chosen versions with their specHash, tags, pin, rules among them; secrets by name only (viewer)',
        parameters: [ws, agentId, ...queryParameters(ExportAgentQuerySchema)],
        responses: { '200': json('AgentBundle', 'the bundle'), ...errors },
      },
    },
    [`${base}/agents:import`]: {
      post: {
        operationId: 'importAgents',
        summary:
          'Import a bundle into this workspace (member): every agent created disabled with new ids, versions renumbered 1…n, or nothing written — 400 BUNDLE_SPEC_HASH_MISMATCH, BUNDLE_COLLABORATOR_UNKNOWN, BUNDLE_INCONSISTENT, VALIDATION_FAILED (unknown fields); 409 AGENT_NAME_TAKEN',
        parameters: [ws],
        requestBody: body('AgentBundle'),
        responses: { '201': json('ImportAgentsResponse', 'the agents created'), ...errors, '409': json('Error', 'AGENT_NAME_TAKEN') },
      },
    },
  };
}
