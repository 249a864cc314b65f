import { AppError, ErrorCode, isTerminalRunStatus, type MailboxEnvelope, type MailboxSender } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { Principal } from '../auth-ports';
import type { Mailbox, SteeringStore } from '../mailbox-ports';

/** What posting a session message needs. */
export interface PostSessionMessageDeps {
  steering: SteeringStore;
  mailbox: Mailbox;
}

/** The envelope's sender: the user, with their display name when they have one (the loop attributes by it). */
async function senderOf(steering: SteeringStore, userId: string): Promise<MailboxSender> {
  const name = (await steering.userName(userId))?.slice(0, 256);
  return name ? { type: 'user', userId, name } : { type: 'user', userId };
}

/**
 * Steering, for `POST /sessions/{id}/messages` and the `send_session_message`
 * tool: puts the caller's message in the session's mailbox, where the run's
 * loop reads it at its next step. The session must belong to a run of the
 * caller's workspace (else SESSION_NOT_FOUND), and one of its runs must still
 * be queued, running or awaiting approval (else SESSION_NOT_ACTIVE: nobody
 * would ever read it). Returns the envelope's id.
 */
export async function postSessionMessage(
  deps: PostSessionMessageDeps,
  principal: Principal,
  sessionId: string,
  content: string,
): Promise<{ id: string }> {
  const statuses = await deps.steering.sessionRunStatuses(principal.workspaceId, sessionId);
  if (statuses.length === 0) throw new AppError(ErrorCode.SESSION_NOT_FOUND, 'no such session in this workspace', { id: sessionId });
  if (statuses.every(isTerminalRunStatus)) {
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
    // The one write of a session message: REST and MCP both come through here.
    posted = await deps.mailbox.post(envelope);
  } catch (error) {
    // The error middleware logs it (status 503) with this cause.
    throw new AppError(ErrorCode.UNAVAILABLE, 'the message could not be delivered: try again', { id: sessionId }, { cause: error });
  }
  // The run ended between the ledger check and the post: its mailbox is closed, nothing was written.
  if (posted === 'closed') throw new AppError(ErrorCode.SESSION_NOT_ACTIVE, 'the session\'s run has ended: nothing would read the message', { id: sessionId });
  return { id: envelope.id };
}
