import { Router } from 'express';
import { z } from 'zod';
import { PostSessionMessageRequestSchema } from '@switchyard/contracts';
import { postSessionMessage, type PostSessionMessageDeps } from '../commands/post-session-message';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';

/** What the session routes need. */
export type SessionsRoutesDeps = PostSessionMessageDeps;

/**
 * Steering: `POST /v1/workspaces/{ws}/sessions/{id}/messages {content}`
 * (member) puts the caller's message in the session's mailbox (see
 * postSessionMessage): 202 with the envelope id.
 */
export function sessionsRoutes(deps: SessionsRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/sessions/:id/messages', requireRole('member'), async (req, res) => {
    const sessionId = parseInput(z.uuid(), req.params.id, 'session id');
    const { content } = parseBody(PostSessionMessageRequestSchema, req);
    res.status(202).json(await postSessionMessage(deps, principalOf(res), sessionId, content));
  });

  return router;
}
