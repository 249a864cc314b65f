import type { Actor } from '@switchyard/contracts';
import type { ChangeAuthor } from '@switchyard/core';
import type { Principal } from './auth-ports';

/**
 * Who the platform says did something, from the token alone (decision 0018):
 * an agent token is its agent; any other token is the member it belongs to,
 * named as they are named now (decision 0042).
 */
export function actorOf(principal: Principal): Actor {
  if (principal.agent) return { type: 'agent', id: principal.agent.agentId };
  return { type: 'member', id: principal.userId, ...(principal.userName ? { name: principal.userName.slice(0, 256) } : {}) };
}

/** The author of a change the caller makes: its workspace and its actor, for the facts announcing it. */
export function changeAuthorOf(principal: Principal): ChangeAuthor {
  return { workspaceId: principal.workspaceId, workspaceSlug: principal.workspaceSlug, actor: actorOf(principal) };
}
