import {
  AGENT_MESSAGE_SCHEMA,
  AppError,
  DEFAULT_AGENT_MESSAGE_TTL_MS,
  ErrorCode,
  type AgentMessagePostResponse,
  type AgentMessageSender,
  type PostPeerNoteInput,
} from '@switchyard/contracts';
import { derivedId, newId, screenAgentMessage, screenAgentMessageBytes, sha256Hex, type ScreenResult } from '@switchyard/core';
import { senderKeyOf, type AgentMessageStore } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import type { Principal } from '../auth-ports';

/** What the producers need. */
export interface AgentMessageCommandDeps {
  agentMessages: Pick<AgentMessageStore, 'observe' | 'quarantine' | 'nextSenderSeq'>;
  /** AGENT_MESSAGE_CONTENT_RETENTION_MS: how long a note's content is kept after it is received. */
  contentRetentionMs: number;
  /** Told of each new observation (this replica's streams read at once). */
  onObserved?: (workspaceId: string) => void;
  log: Logger;
}

/** The sender a credential stands for: a run's agent, or the member the token belongs to. Never what a producer claims. */
export function senderOf(principal: Principal): AgentMessageSender {
  return principal.agent ? { type: 'agent', id: principal.agent.agentId, runId: principal.agent.runId } : { type: 'member', id: principal.userId };
}

const senderRefused = () =>
  new AppError(ErrorCode.AGENT_MESSAGE_SENDER_REFUSED, 'an agent-message names no sender: the platform fills it from your token', { field: 'sender' });

/**
 * `POST /v1/workspaces/{ws}/agent-messages` (decision 0047): the body's bytes
 * are screened before anything is observed, and a post is either observed
 * (or a replay of an observation), or quarantined with its reason and bounded
 * metadata. Only an envelope naming its own `sender` is refused (400).
 */
export async function postAgentMessage(deps: AgentMessageCommandDeps, principal: Principal, raw: Uint8Array): Promise<AgentMessagePostResponse> {
  const receivedAt = new Date();
  return settle(deps, principal, screenAgentMessageBytes(raw, receivedAt), receivedAt);
}

/**
 * The platform tool `post_peer_note`: the platform fills the envelope's id,
 * times and the sender's next senderSeq, then screens and settles it like a post.
 */
export async function postPeerNote(deps: AgentMessageCommandDeps, principal: Principal, input: PostPeerNoteInput): Promise<AgentMessagePostResponse> {
  const receivedAt = new Date();
  const sender = senderOf(principal);
  const envelope = {
    schema: AGENT_MESSAGE_SCHEMA,
    messageId: newId(),
    senderSeq: await deps.agentMessages.nextSenderSeq(principal.workspaceId, sender),
    thread: input.thread,
    createdAt: receivedAt.toISOString(),
    expiresAt: new Date(receivedAt.getTime() + (input.expiresInMs ?? DEFAULT_AGENT_MESSAGE_TTL_MS)).toISOString(),
    topic: input.topic,
    content: input.content,
    deliveryMode: 'shadow' as const,
    canAuthorizeActions: false as const,
  };
  const text = JSON.stringify(envelope);
  const screened = screenAgentMessage(envelope, receivedAt, { bodySha256: sha256Hex(text), bodyBytes: Buffer.byteLength(text) });
  return settle(deps, principal, screened, receivedAt);
}

/** Observes what passed screening, quarantines the rest (a duplicate messageId too); logs only bounded metadata. */
async function settle(deps: AgentMessageCommandDeps, principal: Principal, screened: ScreenResult, receivedAt: Date): Promise<AgentMessagePostResponse> {
  if (!screened.ok && 'senderNamed' in screened) throw senderRefused();
  const workspaceId = principal.workspaceId;
  const sender = senderOf(principal);
  const quarantine = async (facts: Parameters<AgentMessageCommandDeps['agentMessages']['quarantine']>[2]) => {
    await deps.agentMessages.quarantine(workspaceId, sender, facts, receivedAt);
    deps.log.info({ workspaceId, messageId: facts.messageId, reason: facts.reason, bodyBytes: facts.bodyBytes }, 'agent-message quarantined');
    return { messageId: facts.messageId, disposition: 'quarantined' as const, reason: facts.reason };
  };
  const quarantineId = (reason: string, bodySha256: string) => derivedId('agent-message-quarantine', workspaceId, senderKeyOf(sender), reason, bodySha256);
  if (!screened.ok) return quarantine({ id: quarantineId(screened.quarantine.reason, screened.quarantine.bodySha256), ...screened.quarantine });
  const { post, contentSha256, contentChars, bodySha256, bodyBytes } = screened;
  const retainUntil = new Date(receivedAt.getTime() + deps.contentRetentionMs);
  const outcome = await deps.agentMessages.observe({ workspaceId, post, sender, contentSha256, contentChars, receivedAt, retainUntil });
  if (outcome.disposition === 'duplicate_message') {
    return quarantine({ id: quarantineId('duplicate_message', bodySha256), reason: 'duplicate_message', messageId: post.messageId, bodyBytes, contentChars, bodySha256, issues: [] });
  }
  if (outcome.disposition === 'observed') deps.onObserved?.(workspaceId);
  return { messageId: post.messageId, disposition: outcome.disposition, seq: outcome.seq };
}
