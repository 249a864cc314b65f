import { Router, type Request } from 'express';
import {
  AgentMessageIdSchema,
  AgentMessageStreamQuerySchema,
  AppError,
  ErrorCode,
  ListAgentMessagesQuerySchema,
  ListQuarantineQuerySchema,
  MAX_AGENT_MESSAGE_ENVELOPE_BYTES,
} from '@switchyard/contracts';
import type { AgentMessageStore } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import { z } from 'zod';
import { postAgentMessage, type AgentMessageCommandDeps } from '../commands/agent-messages';
import { credentialOfRequest, principalOf, requireRole } from '../http/auth';
import type { CredentialWatch } from '../sse/credential-watch';
import { serveEventStream } from '../sse/event-stream';
import { rawJsonBody } from '../http/json-body';
import { parseInput, parseQuery } from '../http/validate';
import { AgentMessageSession } from '../sse/agent-message-session';
import type { ObservationSignal } from '../sse/observation-signal';

/**
 * `POST /v1/workspaces/{ws}/agent-messages` (decision 0047), mounted after the
 * workspace router authenticates and before it parses JSON: the body is read
 * as bytes, because a duplicate property is only visible there. Bodies up to
 * the gateway's limit are read, so an oversized envelope is quarantined with
 * its reason rather than refused at the door (past BODY_LIMIT_BYTES: 413).
 */
export function agentMessageProducerRoutes(deps: AgentMessageCommandDeps & { bodyLimitBytes: number }): Router {
  const router = Router({ mergeParams: true });
  const limitBytes = Math.max(deps.bodyLimitBytes, MAX_AGENT_MESSAGE_ENVELOPE_BYTES + 1);
  router.post('/agent-messages', requireRole('member'), ...rawJsonBody({ limitBytes }), async (req, res) => {
    const raw: Uint8Array = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.status(202).json(await postAgentMessage(deps, principalOf(res), raw));
  });
  return router;
}

/** What the read surfaces need. */
export interface AgentMessageReadRoutesDeps {
  agentMessages: Pick<AgentMessageStore, 'listAfter' | 'lastSeq' | 'listQuarantine' | 'content' | 'health'>;
  /** AGENT_MESSAGE_STREAM_POLL_MS. */
  pollMs: number;
  /** Wakes this replica's streams when the producer routes observe a note. */
  observations: ObservationSignal;
  /** Ends an open stream once its token stops working (revoked, expired, its run ended). */
  watch: CredentialWatch;
  heartbeatMs: number;
  log: Logger;
}

const messageIdOf = (req: Request) => parseInput(AgentMessageIdSchema, req.params.messageId, 'messageId');

/**
 * The read-only surfaces of the observation plane: observations by cursor,
 * quarantine, health, the SSE projection, and one note's content for a person
 * who asks for it. There is no write, ack, resend or command route here.
 */
export function agentMessageReadRoutes(deps: AgentMessageReadRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  const store = deps.agentMessages;
  router.use('/agent-messages', requireRole('viewer'));

  router.get('/agent-messages', async (req, res) => {
    const { since, limit } = parseQuery(ListAgentMessagesQuerySchema, req);
    const observations = await store.listAfter(principalOf(res).workspaceId, since, limit);
    res.json({ observations, next: observations.at(-1)?.seq ?? since });
  });

  router.get('/agent-messages/quarantine', async (req, res) => {
    const { limit } = parseQuery(ListQuarantineQuerySchema, req);
    res.json({ quarantined: await store.listQuarantine(principalOf(res).workspaceId, limit) });
  });

  router.get('/agent-messages/health', async (_req, res) => {
    res.json(await store.health(principalOf(res).workspaceId));
  });

  router.get('/agent-messages/stream', async (req, res) => {
    const query = parseQuery(AgentMessageStreamQuerySchema, req);
    const header = req.headers['last-event-id'];
    const resumeFrom = header !== undefined ? parseInput(z.coerce.number().int().min(0), header, 'Last-Event-ID') : query.since;
    const principal = principalOf(res);
    const workspaceId = principal.workspaceId;
    const lastSeq = resumeFrom ?? (await store.lastSeq(workspaceId));
    const session = new AgentMessageSession({ res, workspaceId, listAfter: (ws, since, limit) => store.listAfter(ws, since, limit), lastSeq, pollMs: deps.pollMs, heartbeatMs: deps.heartbeatMs, log: deps.log });
    serveEventStream(res, session, {
      preamble: `retry: 2000\nid: ${lastSeq}\n\n`,
      watch: deps.watch,
      credential: credentialOfRequest(res),
      tokenId: principal.tokenId,
      subscribe: () => deps.observations.subscribe(workspaceId, () => session.wake()),
    });
  });

  // A person asks for one message's text: never an agent (a run reading peers' text would be the injection this plane forbids).
  router.get('/agent-messages/:messageId/content', requireRole('member'), async (req, res) => {
    const principal = principalOf(res);
    if (principal.agent) throw new AppError(ErrorCode.FORBIDDEN, "an agent token cannot read peer notes' content");
    const messageId = messageIdOf(req);
    const found = await store.content(principal.workspaceId, messageId);
    if (!found) throw new AppError(ErrorCode.AGENT_MESSAGE_NOT_FOUND, 'no retained peer note with that messageId', { messageId });
    res.setHeader('cache-control', 'no-store');
    res.json({ messageId, contentSha256: found.contentSha256, content: found.content, untrusted: true });
  });

  return router;
}
