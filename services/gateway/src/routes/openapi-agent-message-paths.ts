import { AgentMessageStreamQuerySchema, ListAgentMessagesQuerySchema, ListQuarantineQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, queryParameters, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const messageId = pathParameter('messageId', { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' }, "the envelope's messageId");

/**
 * The agent-message observation plane (docs/awareness.md, decision 0047): one
 * producer route, and reads. No write, ack, resend or command route exists
 * beside `POST /agent-messages` (a test walks this document to show it).
 */
export function agentMessagePaths(): OpenApiPaths {
  return {
    [`${base}/agent-messages`]: {
      post: {
        operationId: 'postAgentMessage',
        summary:
          'Post an agent-message/v1 envelope without `sender` (member; the platform fills it from the token; 400 AGENT_MESSAGE_SENDER_REFUSED when one is named). ' +
          'Screened on the raw body: 202 observed | replayed (same envelope again) | quarantined with reason invalid, expired, oversized, duplicate_property, duplicate_message or secret_detected',
        parameters: [ws],
        requestBody: body('AgentMessagePost'),
        responses: { '202': json('AgentMessagePostResponse', 'observed, replayed or quarantined'), ...errors },
      },
      get: {
        operationId: 'listAgentMessages',
        summary: 'Observations after a cursor (since=0 from the start), in seq order: delivery metadata and contentSha256, never content',
        parameters: [ws, ...queryParameters(ListAgentMessagesQuerySchema, { since: 'a seq: the next of the previous page' })],
        responses: { '200': json('ListAgentMessagesResponse', 'a page of observations'), ...errors },
      },
    },
    [`${base}/agent-messages/quarantine`]: {
      get: {
        operationId: 'listAgentMessageQuarantine',
        summary: 'Quarantined posts, newest first: reason and bounded metadata (sizes, sender, body hash, issue codes), never content',
        parameters: [ws, ...queryParameters(ListQuarantineQuerySchema)],
        responses: { '200': json('ListAgentMessageQuarantineResponse', 'quarantine records'), ...errors },
      },
    },
    [`${base}/agent-messages/health`]: {
      get: {
        operationId: 'getAgentMessageHealth',
        summary: 'Thread activity and delivery health: observations, senders, gaps and regressions per thread, quarantine counts by reason',
        parameters: [ws],
        responses: { '200': json('AgentMessageHealth', 'health'), ...errors },
      },
    },
    [`${base}/agent-messages/stream`]: {
      get: {
        operationId: 'streamAgentMessages',
        summary: 'Server-Sent Events of new observations (event: observation; id = seq); resume exactly with Last-Event-ID or since',
        parameters: [ws, ...queryParameters(AgentMessageStreamQuerySchema.omit({ ticket: true })), { name: 'Last-Event-ID', in: 'header', schema: { type: 'integer' } }],
        responses: { '200': { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors },
      },
    },
    [`${base}/agent-messages/{messageId}/content`]: {
      get: {
        operationId: 'getAgentMessageContent',
        summary: "One note's text, asked for explicitly by a person (member; never an agent token), while retained; marked untrusted",
        parameters: [ws, messageId],
        responses: { '200': json('AgentMessageContentResponse', 'the content'), ...errors },
      },
    },
  };
}
