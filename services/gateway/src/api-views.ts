import type { AgentResponse, Run } from '@switchyard/contracts';
import type { AgentRecord } from './agent-ports';
import type { Principal } from './auth-ports';
import type { RunRecord } from './run-ports';

/** A run as the API shows it (`RunSchema`): ISO timestamps, the workspace by slug. */
export function toRunResponse(run: RunRecord, principal: Principal): Run {
  return {
    id: run.id,
    workspace: principal.workspaceSlug,
    agentId: run.agentId,
    agentVersion: run.agentVersion,
    origin: run.origin,
    trigger: run.eventId && run.eventKind && run.eventSubject ? { eventId: run.eventId, kind: run.eventKind, subject: run.eventSubject } : null,
    status: run.status,
    reason: run.reason,
    causedBy: run.causedBy,
    depth: run.depth,
    sessionId: run.sessionId,
    outcome: run.outcome,
    error: run.error,
    queuedAt: run.queuedAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    endedAt: run.endedAt?.toISOString() ?? null,
  };
}

/** An agent as the API shows it (`AgentResponseSchema`): its latest version's spec, the workspace by slug. */
export function toAgentResponse(agent: AgentRecord, principal: Principal): AgentResponse {
  return {
    id: agent.id,
    workspace: principal.workspaceSlug,
    version: agent.version,
    enabled: agent.enabled,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
    spec: agent.spec,
    pinnedVersion: agent.pinnedVersion,
  };
}
