import { Router } from 'express';
import { z } from 'zod';
import { AppError, ErrorCode, PostSessionMessageRequestSchema, type MailboxEnvelope, type MailboxSender } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import type { Mailbox, SteeringStore } from '../ports';
import { TERMINAL_STATUSES } from '../run-ledger';

/** What the session routes need. */
export interface SessionsRoutesDeps {
  steering: SteeringStore;
  mailbox: Mailbox;
}

/** The envelope's sender: the user, with their display name when they have one (the loop attributes by it). */
async function senderOf(steering: SteeringStore, userId: string): Promise<MailboxSender> {
  const name = (await steering.userName(userId))?.slice(0, 256);
  return name ? { type: 'user', userId, name } : { type: 'user', userId };
}

/**
 * Steering: `POST /v1/workspaces/{ws}/sessions/{id}/messages {content}`
 * (member) puts the caller's message in the session's mailbox, where the run's
 * loop reads it at its next step. The session must belong to a run of the
 * caller's workspace (else 404), and one of its runs must still be queued,
 * running or awaiting approval (else 409: nobody would ever read it).
 */
export function sessionsRoutes(deps: SessionsRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/sessions/:id/messages', requireRole('member'), async (req, res) => {
    const sessionId = parseInput(z.uuid(), req.params.id, 'session id');
    const { content } = parseBody(PostSessionMessageRequestSchema, req);
    const principal = principalOf(res);
    const statuses = await deps.steering.sessionRunStatuses(principal.workspaceId, sessionId);
    if (statuses.length === 0) throw new AppError(ErrorCode.SESSION_NOT_FOUND, 'no such session in this workspace', { id: sessionId });
    if (statuses.every((status) => TERMINAL_STATUSES.includes(status))) {
      throw new AppError(ErrorCode.SESSION_NOT_ACTIVE, 'every run of this session has ended: nothing would read the message', { id: sessionId });
    }
    const envelope: MailboxEnvelope = {
      schemaVersion: 1,
      id: newId(),
      sessionId,
      from: await senderOf(deps.steering, principal.userId),
      content,
      sentAt: new Date().toISOString(),
    };
    let posted: 'delivered' | 'closed';
    try {
      posted = await deps.mailbox.post(envelope);
    } catch (error) {
      // The error middleware logs it (status 503) with this cause.
      throw new AppError(ErrorCode.UNAVAILABLE, 'the message could not be delivered: try again', { id: sessionId }, { cause: error });
    }
    // The run ended between the ledger check and the post: its mailbox is closed, nothing was written.
    if (posted === 'closed') throw new AppError(ErrorCode.SESSION_NOT_ACTIVE, 'the session\'s run has ended: nothing would read the message', { id: sessionId });
    res.status(202).json({ id: envelope.id });
  });

  return router;
}
