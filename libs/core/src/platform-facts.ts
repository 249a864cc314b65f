import {
  APPROVAL_FACT_KINDS,
  WORKSPACE_FACT_KINDS,
  type Approval,
  type ApprovalFactPayload,
  type CausedBy,
  type AcceptedFact,
  type Actor,
  type AgentFactKind,
  type AgentFactPayload,
  type MessageSentPayload,
  type WorkspaceSettingsChangedPayload,
} from '@switchyard/contracts';
import { newId } from './ids';

/**
 * Who made a change, and in which workspace: what every fact announcing it
 * carries. Run statuses have their own builder, the runs trigger (decision
 * 0024); these are the builders of the platform's other facts.
 */
export interface ChangeAuthor {
  workspaceId: string;
  workspaceSlug: string;
  /** The caller whose request made the change, as the platform states it. */
  actor: Actor;
}

function changeFact(author: ChangeAuthor, kind: string, subject: AcceptedFact['subject'], payload: AcceptedFact['payload']): AcceptedFact {
  return { id: newId(), workspace: author.workspaceSlug, workspaceId: author.workspaceId, kind, subject, actor: author.actor, payload, ts: new Date().toISOString() };
}

/** An `agent.*` registry fact: subject the agent, payload its state after the change. */
export function agentFact(author: ChangeAuthor, kind: AgentFactKind, agent: { id: string; name: string; version: number; enabled: boolean }): AcceptedFact {
  const payload: AgentFactPayload = { version: agent.version, name: agent.name, enabled: agent.enabled };
  return changeFact(author, kind, { type: 'agent', id: agent.id }, payload);
}

/** `workspace.settings_changed`: subject the workspace, payload the settings as saved. */
export function settingsChangedFact(author: ChangeAuthor, settings: WorkspaceSettingsChangedPayload): AcceptedFact {
  return changeFact(author, WORKSPACE_FACT_KINDS.settingsChanged, { type: 'workspace', id: author.workspaceId }, { ...settings });
}

/** An `approval.*` kind. */
export type ApprovalFactKind = (typeof APPROVAL_FACT_KINDS)[keyof typeof APPROVAL_FACT_KINDS];

/**
 * An `approval.requested | decided | expired` fact: subject the approval,
 * payload the approval after the change, caused by its run (so the loop
 * guards see it as that run's doing). Its idempotency key
 * `approval:<id>:<status>` makes a repeated recording of one change one fact.
 */
export function approvalFact(author: ChangeAuthor, kind: ApprovalFactKind, approval: Approval, causedBy: CausedBy): AcceptedFact {
  const { workspace: _workspace, ...payload } = approval;
  const fact = changeFact(author, kind, { type: 'approval', id: approval.id }, payload satisfies ApprovalFactPayload);
  return { ...fact, causedBy, idempotencyKey: `approval:${approval.id}:${approval.status}` };
}

/** `teammate.spawned | teammate.stopped`: subject the teammate, payload its name, agent and session. */
export function teammateFact(
  author: ChangeAuthor,
  kind: 'teammate.spawned' | 'teammate.stopped',
  teammate: { id: string; name: string; agentId: string; sessionId: string; team: string | null },
): AcceptedFact {
  return changeFact(author, kind, { type: 'teammate', id: teammate.id }, { name: teammate.name, agentId: teammate.agentId, sessionId: teammate.sessionId, team: teammate.team });
}

/** `message.sent`: subject the recipient session; ids and sizes, never the content (decision 0035). */
export function messageSentFact(author: ChangeAuthor, payload: MessageSentPayload): AcceptedFact {
  return changeFact(author, 'message.sent', { type: 'session', id: payload.sessionId }, { ...payload });
}
