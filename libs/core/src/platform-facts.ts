import {
  APPROVAL_FACT_KINDS,
  EVAL_GATE_OVERRIDDEN_KIND,
  COLLABORATOR_FACT_KINDS,
  DELEGATION_FACT_KINDS,
  type DelegationReturnedPayload,
  WORKSPACE_FACT_KINDS,
  type CollaboratorChangedPayload,
  type TaskFactKind,
  type TaskFactPayload,
  type Approval,
  type ApprovalFactPayload,
  type CausedBy,
  type AcceptedFact,
  type Actor,
  type AgentFactKind,
  type AgentFactPayload,
  type AgentTagFactKind,
  type AgentTagFactPayload,
  type MessageSentPayload,
  type WorkspaceSettingsChangedPayload,
  WEBHOOK_FACT_KINDS,
  type WebhookConfiguredPayload,
  type WebhookDeletedPayload,
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

/** A fact of a change made by `author`, now: the one shape every change fact starts from (audit-facts.ts builds on it too). */
export function changeFact(author: ChangeAuthor, kind: string, subject: AcceptedFact['subject'], payload: AcceptedFact['payload']): AcceptedFact {
  return { id: newId(), workspace: author.workspaceSlug, workspaceId: author.workspaceId, kind, subject, actor: author.actor, payload, ts: new Date().toISOString() };
}

/** An `agent.*` registry fact: subject the agent, payload its state after the change. */
export function agentFact(
  author: ChangeAuthor,
  kind: AgentFactKind,
  agent: { id: string; name: string; version: number; enabled: boolean; pinnedVersion?: number | null },
): AcceptedFact {
  const payload: AgentFactPayload = { version: agent.version, name: agent.name, enabled: agent.enabled };
  if (agent.pinnedVersion !== undefined) payload.pinnedVersion = agent.pinnedVersion;
  return changeFact(author, kind, { type: 'agent', id: agent.id }, payload);
}

/**
 * The version new runs of an agent use (decision 0046): the pinned one when
 * set, else the latest. The one rule the gateway and the matcher apply in
 * TypeScript; SQL writes it `COALESCE(pinned_version, latest_version)`.
 */
export function runVersionOf(agent: { version: number; pinnedVersion?: number | null }): number {
  return agent.pinnedVersion ?? agent.version;
}

/** `agent.tagged | agent.untagged`: subject the agent, payload the tag and the version it names. */
export function agentTagFact(author: ChangeAuthor, kind: AgentTagFactKind, agentId: string, payload: AgentTagFactPayload): AcceptedFact {
  return changeFact(author, kind, { type: 'agent', id: agentId }, { ...payload });
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

/**
 * A `task.*` fact: subject the task, payload the task after the change. A
 * change made by a run (its agent token) is caused by that run, so the
 * matcher's self-cause guard keeps an agent from waking on its own tasks.
 */
export function taskFact(author: ChangeAuthor, kind: TaskFactKind, task: TaskFactPayload, causedBy: CausedBy | null): AcceptedFact {
  const fact = changeFact(author, kind, { type: 'task', id: task.id }, { ...task });
  return causedBy ? { ...fact, causedBy } : fact;
}

/** `agent.collaborator_changed`: subject the delegating agent, payload the rule after the change (`enabled` null: removed). */
export function collaboratorFact(author: ChangeAuthor, agentId: string, rule: CollaboratorChangedPayload): AcceptedFact {
  return changeFact(author, COLLABORATOR_FACT_KINDS.changed, { type: 'agent', id: agentId }, { ...rule });
}

/**
 * `agent.delegation.returned`: subject the parent run, caused by the child
 * run (so a parent agent that triggers on it is woken by its child, not by
 * itself). The key `delegation:<child>:returned` makes a repeat one fact.
 */
export function delegationReturnedFact(author: ChangeAuthor, parentRunId: string, payload: DelegationReturnedPayload, causedBy: CausedBy): AcceptedFact {
  const fact = changeFact(author, DELEGATION_FACT_KINDS.returned, { type: 'run', id: parentRunId }, { ...payload });
  return { ...fact, causedBy, idempotencyKey: `delegation:${payload.childRunId}:returned` };
}

/** `teammate.spawned | teammate.stopped`: subject the teammate, payload its name, agent and session. */
export function teammateFact(
  author: ChangeAuthor,
  kind: 'teammate.spawned' | 'teammate.stopped',
  teammate: { id: string; name: string; agentId: string; sessionId: string; team: string | null },
): AcceptedFact {
  return changeFact(author, kind, { type: 'teammate', id: teammate.id }, { name: teammate.name, agentId: teammate.agentId, sessionId: teammate.sessionId, team: teammate.team });
}

/**
 * `message.sent`: subject the recipient session; ids and sizes, never the
 * content (decision 0035). Caused like the turn the delivery wakes (the
 * sender's run, or the delivered fact's cause), so the guards see a teammate
 * that watches `message.sent` woken by its own messages as self-caused.
 */
export function messageSentFact(author: ChangeAuthor, payload: MessageSentPayload, causedBy?: CausedBy | null): AcceptedFact {
  const fact = changeFact(author, 'message.sent', { type: 'session', id: payload.sessionId }, { ...payload });
  return causedBy ? { ...fact, causedBy } : fact;
}

/**
 * `webhook.configured` (payload the configuration as saved and whether it
 * was new) or `webhook.deleted`: subject the webhook by name. Never the secret.
 */
export function webhookFact(
  author: ChangeAuthor,
  change: { kind: 'configured'; payload: WebhookConfiguredPayload } | { kind: 'deleted'; payload: WebhookDeletedPayload },
): AcceptedFact {
  return changeFact(author, WEBHOOK_FACT_KINDS[change.kind], { type: 'webhook', id: change.payload.name }, { ...change.payload });
}

/** `agent.eval_gate_overridden` (decision 0058): subject the agent; payload the version let through, the reason and what failed. */
export function evalGateOverriddenFact(
  author: ChangeAuthor,
  agentId: string,
  payload: { name: string; version: number; suite: string; evalId: string | null; failingCases: number[]; reason: string },
): AcceptedFact {
  return changeFact(author, EVAL_GATE_OVERRIDDEN_KIND, { type: 'agent', id: agentId }, { ...payload });
}
