import { AGENT_BUNDLE_FORMAT, AppError, ErrorCode, type AgentBundle, type BundleAgent } from '@switchyard/contracts';
import { newId, specHash } from '@switchyard/core';
import type { StoredAgentSpec } from './agent-ports';
import type { BundleSourceAgent, ImportedAgentPlan } from './version-ports';

/*
 * Agent bundles as pure data (decision 0046): what an export writes from the
 * agents it read, and what an import plans from a parsed bundle — every
 * refusal before anything is written.
 */

/** The secret a literal MCP header becomes in a bundle: `mcp.<server>.<header>`, in secret-name characters. */
export function headerSecretName(server: string, header: string): string {
  return `mcp.${server}.${header}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
}

/**
 * A spec as a bundle carries it: credentials by name only. A model key and a
 * header already named as a workspace secret stay as they are; a literal MCP
 * header value (which may be a credential: the registry stores it as given)
 * becomes a reference to the secret `headerSecretName`, to set in the target.
 */
export function bundleSpec(spec: StoredAgentSpec): StoredAgentSpec {
  const mcpServers = spec.tools.mcpServers.map((server) => {
    if (server.transport !== 'http' || !server.headers) return server;
    const headers = Object.fromEntries(
      Object.entries(server.headers).map(([name, value]) => [name, typeof value === 'string' ? { secret: headerSecretName(server.name, name) } : value]),
    );
    return { ...server, headers };
  });
  return { ...spec, tools: { ...spec.tools, mcpServers } };
}

/** The workspace secrets a spec names. */
export function secretNamesOf(spec: StoredAgentSpec): string[] {
  const names = spec.model.apiKeySecret ? [spec.model.apiKeySecret] : [];
  for (const server of spec.tools.mcpServers) {
    if (server.transport !== 'http') continue;
    for (const value of Object.values(server.headers ?? {})) if (typeof value !== 'string') names.push(value.secret);
  }
  return names;
}

/** The bundle of the agents read for an export: their chosen versions, the tags and pin on those, and rules among them. */
export function buildBundle(workspace: string, agents: BundleSourceAgent[], now: Date): AgentBundle {
  const exported = new Set(agents.map((agent) => agent.id));
  const secrets = new Set<string>();
  const bundled = agents.map((agent): BundleAgent => {
    const numbers = new Set(agent.versions.map((v) => v.version));
    const versions = agent.versions.map(({ version, spec }) => {
      const carried = bundleSpec(spec);
      for (const name of secretNamesOf(carried)) secrets.add(name);
      return { version, specHash: specHash(carried), spec: carried };
    });
    return {
      key: agent.id,
      name: versions.at(-1)!.spec.name,
      enabled: agent.enabled,
      pinnedVersion: agent.pinnedVersion !== null && numbers.has(agent.pinnedVersion) ? agent.pinnedVersion : null,
      templateOrigin: agent.templateOrigin,
      versions,
      tags: agent.tags.filter((t) => numbers.has(t.version)),
      collaborators: agent.collaborators.filter((c) => exported.has(c.agentId)).map((c) => ({ agent: c.agentId, enabled: c.enabled })),
    };
  });
  return { format: AGENT_BUNDLE_FORMAT, exportedAt: now.toISOString(), source: { workspace }, agents: bundled, secrets: [...secrets].sort() };
}

const inconsistent = (agent: string, reason: string) => new AppError(ErrorCode.BUNDLE_INCONSISTENT, `the bundle contradicts itself: ${reason}`, { agent, reason });

/** Refuses an agent of a bundle whose versions do not hash to their `specHash`, or that contradicts itself. */
function checkAgent(agent: BundleAgent, keys: Set<string>): void {
  let previous = 0;
  for (const { version, spec, specHash: expected } of agent.versions) {
    if (version <= previous) throw inconsistent(agent.key, 'versions must ascend');
    previous = version;
    const { enabled: _enabled, ...stored } = spec;
    const actual = specHash(stored);
    if (actual !== expected) {
      throw new AppError(ErrorCode.BUNDLE_SPEC_HASH_MISMATCH, 'a version spec does not match its specHash: the bundle was changed', { agent: agent.key, version, expected, actual });
    }
  }
  if (agent.versions.at(-1)!.spec.name !== agent.name) throw inconsistent(agent.key, 'name is not the latest version’s name');
  const numbers = new Set(agent.versions.map((v) => v.version));
  if (agent.pinnedVersion !== null && !numbers.has(agent.pinnedVersion)) throw inconsistent(agent.key, `pinned version ${agent.pinnedVersion} is not in the bundle`);
  const tags = new Set<string>();
  for (const { tag, version } of agent.tags) {
    if (!numbers.has(version)) throw inconsistent(agent.key, `tag ${tag} names version ${version}, which is not in the bundle`);
    if (tags.has(tag)) throw inconsistent(agent.key, `tag ${tag} is given twice`);
    tags.add(tag);
  }
  const targets = new Set<string>();
  for (const { agent: target } of agent.collaborators) {
    if (!keys.has(target) || target === agent.key) {
      throw new AppError(ErrorCode.BUNDLE_COLLABORATOR_UNKNOWN, 'a collaborator rule names an agent that is not in the bundle', { agent: agent.key, collaborator: target });
    }
    if (targets.has(target)) throw inconsistent(agent.key, `collaborator ${target} is given twice`);
    targets.add(target);
  }
}

/**
 * The import of a parsed bundle: new ids, versions renumbered 1, 2, … in their
 * order (a pin and tags follow their versions), rules by the new ids. Throws
 * the bundle's refusal (BUNDLE_*) when any agent fails its checks.
 */
export function planImport(bundle: AgentBundle): ImportedAgentPlan[] {
  const keys = new Set(bundle.agents.map((agent) => agent.key));
  if (keys.size !== bundle.agents.length) throw inconsistent('', 'two agents share a key');
  if (new Set(bundle.agents.map((agent) => agent.name)).size !== bundle.agents.length) throw inconsistent('', 'two agents share a name');
  for (const agent of bundle.agents) checkAgent(agent, keys);
  const ids = new Map(bundle.agents.map((agent) => [agent.key, newId()]));
  return bundle.agents.map((agent) => {
    const renumbered = new Map(agent.versions.map((v, index) => [v.version, index + 1]));
    return {
      key: agent.key,
      id: ids.get(agent.key)!,
      templateOrigin: agent.templateOrigin,
      specs: agent.versions.map(({ spec: { enabled: _enabled, ...stored } }) => stored),
      pinnedVersion: agent.pinnedVersion === null ? null : renumbered.get(agent.pinnedVersion)!,
      tags: agent.tags.map((t) => ({ tag: t.tag, version: renumbered.get(t.version)! })),
      collaborators: agent.collaborators.map((c) => ({ agentId: ids.get(c.agent)!, enabled: c.enabled })),
    };
  });
}
