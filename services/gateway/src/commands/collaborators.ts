import { AppError, ErrorCode, type Collaborator, type ListCollaboratorsQuery } from '@switchyard/contracts';
import { collaboratorFact } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import type { AgentStore } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { CollaboratorStore } from '../team-ports';

/** Who asks, and the id that ties the request to the facts it records. */
export interface CollaboratorCommandContext {
  principal: Principal;
  correlationId: string;
}

const agentNotFound = (id: string) => new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id });

/**
 * Collaborator rules (decision 0032): agent A may delegate to agent B when
 * A's rule toward B is enabled. People write the rules; an agent token never
 * does (an agent does not widen its own permissions). Every change records
 * `agent.collaborator_changed` with it; a write that changes nothing records nothing.
 */
export class CollaboratorRules {
  constructor(
    private readonly store: CollaboratorStore,
    private readonly agents: Pick<AgentStore, 'get'>,
    private readonly outbox: FactFlusher,
  ) {}

  /** The workspace's other live agents, each with the agent's rule toward it. */
  async list(principal: Principal, agentId: string, query: ListCollaboratorsQuery) {
    await this.liveAgent(principal, agentId);
    const peers = await this.store.listPeers(principal.workspaceId, agentId, query);
    const collaborators: Collaborator[] = peers.map((peer) => ({
      agentId: peer.id,
      name: peer.name,
      agentEnabled: peer.enabled,
      rule: peer.rule === null ? 'none' : peer.rule ? 'enabled' : 'disabled',
    }));
    return { agentId, collaborators, nextCursor: peers.length === query.limit ? peers.at(-1)!.id : null };
  }

  async put(ctx: CollaboratorCommandContext, agentId: string, otherId: string, enabled: boolean): Promise<Collaborator> {
    const { principal } = ctx;
    this.assertPerson(principal, agentId, otherId);
    await this.liveAgent(principal, agentId);
    const other = await this.liveAgent(principal, otherId);
    const written: string[] = [];
    await this.store.put({ workspaceId: principal.workspaceId, agentId, collaboratorId: otherId, enabled, userId: principal.userId }, () =>
      this.fact(ctx, written, agentId, { collaboratorId: otherId, collaboratorName: other.name, enabled }),
    );
    await this.outbox.flush(written);
    return { agentId: otherId, name: other.name, agentEnabled: other.enabled, rule: enabled ? 'enabled' : 'disabled' };
  }

  /** Idempotent: removing a rule that does not exist succeeds and records nothing. */
  async remove(ctx: CollaboratorCommandContext, agentId: string, otherId: string): Promise<void> {
    const { principal } = ctx;
    this.assertPerson(principal, agentId, otherId);
    await this.liveAgent(principal, agentId);
    const other = await this.agents.get(principal.workspaceId, otherId);
    const written: string[] = [];
    await this.store.remove({ workspaceId: principal.workspaceId, agentId, collaboratorId: otherId }, () =>
      this.fact(ctx, written, agentId, { collaboratorId: otherId, collaboratorName: other?.name ?? '', enabled: null }),
    );
    await this.outbox.flush(written);
  }

  private assertPerson(principal: Principal, agentId: string, otherId: string): void {
    if (principal.agent) {
      throw new AppError(ErrorCode.FORBIDDEN, 'an agent token cannot change collaborator rules', { required: "a person's token", actual: 'agent token' });
    }
    if (agentId === otherId) throw new AppError(ErrorCode.COLLABORATOR_SELF, 'an agent may always delegate to itself: it needs no rule', { id: agentId });
  }

  private async liveAgent(principal: Principal, id: string) {
    const agent = await this.agents.get(principal.workspaceId, id);
    if (!agent) throw agentNotFound(id);
    return agent;
  }

  private fact(ctx: CollaboratorCommandContext, written: string[], agentId: string, rule: { collaboratorId: string; collaboratorName: string; enabled: boolean | null }) {
    const fact = collaboratorFact(changeAuthorOf(ctx.principal), agentId, rule);
    written.push(fact.id);
    return [{ fact, correlationId: ctx.correlationId }];
  }
}
