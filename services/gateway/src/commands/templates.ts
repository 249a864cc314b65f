import {
  AGENT_FACT_KINDS,
  AppError,
  ErrorCode,
  type AdoptTemplateRequest,
  type AdoptTemplateResponse,
  type TemplateManifest,
  type TemplateSummary,
} from '@switchyard/contracts';
import { agentFact, newId } from '@switchyard/core';
import { secretNamesOf } from '../agent-bundle';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import type { StoredAgentSpec } from '../agent-ports';
import type { FactFlusher } from '../fact-ports';
import type { SecretStore } from '../secret-ports';
import type { NotificationStore } from '../notification-ports';
import type { AgentBundleStore } from '../version-ports';
import type { AgentCommandContext } from './agent-registry';
import { installTemplateRules } from './template-rules';

/** A template as listed: what it does and what it needs, without its spec. */
function summaryOf(manifest: TemplateManifest): TemplateSummary {
  return {
    id: manifest.id,
    version: manifest.version,
    title: manifest.title,
    summary: manifest.summary,
    agentName: manifest.spec.name,
    triggers: manifest.spec.triggers.map((trigger) => trigger.kind),
    permissionMode: manifest.spec.permissionMode,
    requiredSecrets: manifest.requiredSecrets,
    requiredMcpServers: manifest.requiredMcpServers,
    notificationRules: manifest.notificationRules ?? [],
  };
}

/** The spec a copy gets: the template's, renamed, with its live model when asked. */
function copySpec(manifest: TemplateManifest, request: AdoptTemplateRequest): StoredAgentSpec {
  const { enabled: _enabled, ...spec } = manifest.spec;
  return { ...spec, name: request.name ?? spec.name, model: request.model === 'live' ? manifest.liveModel : spec.model };
}

/**
 * First-party templates (decision 0049). Adopting one writes a disabled copy
 * through the bundle import's one-transaction write (it carries
 * `templateOrigin`), records `agent.created`, installs the template's
 * notification rules (template-rules.ts: an admin's adopt, merged once), and
 * answers the checklist of what the copy needs before someone enables it.
 */
export class Templates {
  private readonly byId: Map<string, TemplateManifest>;

  constructor(
    private readonly deps: {
      templates: TemplateManifest[];
      agentBundles: AgentBundleStore;
      secrets: SecretStore;
      /** Where the template's notification rules are installed (the workspace's settings). */
      notificationStore: NotificationStore;
      outbox: FactFlusher;
      userName: UserNameLookup;
    },
  ) {
    this.byId = new Map(deps.templates.map((manifest) => [manifest.id, manifest]));
  }

  list(): TemplateSummary[] {
    return this.deps.templates.map(summaryOf);
  }

  async adopt(ctx: AgentCommandContext, templateId: string, request: AdoptTemplateRequest): Promise<AdoptTemplateResponse> {
    const manifest = this.byId.get(templateId);
    if (!manifest) throw new AppError(ErrorCode.TEMPLATE_NOT_FOUND, 'no template has that id', { id: templateId });
    const { principal } = ctx;
    const spec = copySpec(manifest, request);
    const templateOrigin = { templateId: manifest.id, templateVersion: manifest.version };
    const author = await namedAuthorOf(principal, this.deps.userName);
    const facts = new ChangeFacts(ctx.correlationId);
    const plan = { key: newId(), id: newId(), templateOrigin, specs: [spec], pinnedVersion: null, tags: [], collaborators: [] };
    const result = await this.deps.agentBundles.importAgents({ workspaceId: principal.workspaceId, userId: principal.userId, agents: [plan] }, (agents) =>
      facts.record(...agents.map((agent) => agentFact(author, AGENT_FACT_KINDS.created, agent))),
    );
    if (!result.ok) throw new AppError(ErrorCode.AGENT_NAME_TAKEN, 'another agent of this workspace has that name: adopt with another name', { name: result.name });
    await this.deps.outbox.flush(facts.ids);
    const rules = manifest.notificationRules ?? [];
    const installed = await installTemplateRules({ ...this.deps, notifications: this.deps.notificationStore }, principal, rules, ctx.correlationId);
    const held = new Set((await this.deps.secrets.list(principal.workspaceId)).map((secret) => secret.name));
    const purposes = new Map(manifest.requiredSecrets.map((secret) => [secret.name, secret.purpose]));
    const servers = new Map(spec.tools.mcpServers.map((server) => [server.name, server.transport === 'http' ? server.url : [server.command, ...server.args].join(' ')]));
    const agent = result.agents[0]!;
    return {
      agent: { id: agent.id, name: agent.name, version: agent.version, enabled: false, templateOrigin },
      checklist: {
        secrets: [...new Set(secretNamesOf(spec))].map((name) => ({ name, purpose: purposes.get(name) ?? 'named by the spec', set: held.has(name) })),
        mcpServers: manifest.requiredMcpServers.map((server) => ({ ...server, target: servers.get(server.name) ?? '' })),
        notificationRules: rules,
        notificationRulesInstalled: installed,
      },
    };
  }
}
