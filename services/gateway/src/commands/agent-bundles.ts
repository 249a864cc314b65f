import { AGENT_FACT_KINDS, AppError, ErrorCode, type AgentBundle, type ExportAgentQuery, type ImportAgentsResponse } from '@switchyard/contracts';
import { agentFact, collaboratorFact, specHash, type ChangeAuthor } from '@switchyard/core';
import { buildBundle, planImport, secretNamesOf } from '../agent-bundle';
import { namedAuthorOf, ChangeFacts, type UserNameLookup } from '../audited-change';
import type { FactFlusher } from '../fact-ports';
import type { AgentBundleStore } from '../version-ports';
import type { AgentCommandContext } from './agent-registry';

/**
 * Export and import of agents as bundles (decision 0046). An export reads;
 * an import checks the whole bundle first (hashes, keys, versions named) and
 * then writes every agent in one transaction, created disabled, with their
 * `agent.created` and collaborator facts: all or nothing.
 */
export class AgentBundles {
  constructor(private readonly deps: { agentBundles: AgentBundleStore; outbox: FactFlusher; userName: UserNameLookup; clock?: () => Date }) {}

  /** The bundle of agent `id` and the agents `query.with` names, with the versions `query.versions` chooses. */
  async export(ctx: AgentCommandContext, id: string, query: ExportAgentQuery): Promise<AgentBundle> {
    const others = (query.with ?? []).filter((other) => other !== id);
    if (Array.isArray(query.versions) && others.length > 0) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, 'a list of versions exports one agent', [
        { code: 'versions_list_with_agents', path: ['versions'], message: 'use all, latest or used with `with`' },
      ]);
    }
    return this.exportAgents(ctx.principal.workspaceId, ctx.principal.workspaceSlug, [id, ...new Set(others)], query.versions);
  }

  /** The bundle of the workspace's live agents `ids` (the admin CLI's export names them itself). */
  async exportAgents(workspaceId: string, workspaceSlug: string, ids: string[], versions: ExportAgentQuery['versions']): Promise<AgentBundle> {
    const agents = await this.deps.agentBundles.readForExport(workspaceId, ids, versions);
    const found = new Set(agents.map((agent) => agent.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: missing });
    if (Array.isArray(versions)) {
      const have = new Set(agents[0]!.versions.map((v) => v.version));
      const absent = versions.find((v) => !have.has(v));
      if (absent !== undefined) throw new AppError(ErrorCode.AGENT_VERSION_NOT_FOUND, 'the agent has no such version', { id: ids[0], version: absent });
    }
    // In the order asked, so a bundle of one agent and its collaborators reads from the first.
    const byId = new Map(agents.map((agent) => [agent.id, agent]));
    return buildBundle(workspaceSlug, ids.map((id) => byId.get(id)!), (this.deps.clock ?? (() => new Date()))());
  }

  /** Imports a parsed bundle into the caller's workspace; refusals are BUNDLE_* (400) or AGENT_NAME_TAKEN (409), with nothing written. */
  async import(ctx: AgentCommandContext, bundle: AgentBundle): Promise<ImportAgentsResponse> {
    const author = await namedAuthorOf(ctx.principal, this.deps.userName);
    return this.importAs({ workspaceId: ctx.principal.workspaceId, userId: ctx.principal.userId }, author, ctx.correlationId, bundle);
  }

  /**
   * The import itself, for a caller without a token (the admin CLI): agents
   * created by `target.userId`, facts naming `author`.
   */
  async importAs(target: { workspaceId: string; userId: string }, author: ChangeAuthor, correlationId: string, bundle: AgentBundle): Promise<ImportAgentsResponse> {
    const plans = planImport(bundle);
    const facts = new ChangeFacts(correlationId);
    const result = await this.deps.agentBundles.importAgents({ ...target, agents: plans }, (agents) => {
      const names = new Map(agents.map((agent) => [agent.id, agent.name]));
      return facts.record(
        ...agents.map((agent) => agentFact(author, AGENT_FACT_KINDS.created, agent)),
        ...plans.flatMap((plan) =>
          plan.collaborators.map((rule) => collaboratorFact(author, plan.id, { collaboratorId: rule.agentId, collaboratorName: names.get(rule.agentId)!, enabled: rule.enabled })),
        ),
      );
    });
    if (!result.ok) throw new AppError(ErrorCode.AGENT_NAME_TAKEN, 'another agent of this workspace has that name', { name: result.name });
    await this.deps.outbox.flush(facts.ids);
    const byId = new Map(result.agents.map((agent) => [agent.id, agent]));
    return {
      agents: plans.map((plan, index) => ({
        key: plan.key,
        id: plan.id,
        name: byId.get(plan.id)!.name,
        pinnedVersion: plan.pinnedVersion,
        versions: plan.specs.map((spec, n) => ({ bundleVersion: bundle.agents[index]!.versions[n]!.version, version: n + 1, specHash: specHash(spec) })),
      })),
      secrets: [...new Set(plans.flatMap((plan) => plan.specs.flatMap(secretNamesOf)))].sort(),
    };
  }
}
