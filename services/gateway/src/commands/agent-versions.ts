import {
  AGENT_FACT_KINDS,
  AGENT_TAG_FACT_KINDS,
  AppError,
  ErrorCode,
  MAX_TAGS_PER_AGENT,
  type AcceptedFact,
  type AgentVersionDiffResponse,
  type EvalGateOverride,
} from '@switchyard/contracts';
import { agentFact, agentTagFact, changedTopLevelFields, jsonDiff, runVersionOf, specHash } from '@switchyard/core';
import { namedAuthorOf, ChangeFacts, type UserNameLookup } from '../audited-change';
import type { AgentRecord, AgentStore } from '../agent-ports';
import type { FactFlusher } from '../fact-ports';
import type { AgentVersionStore, TagRecord } from '../version-ports';
import type { EvalGateCheck } from './eval-gate';
import type { AgentCommandContext } from './agent-registry';

const notFound = (id: string) => new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id });
const versionNotFound = (id: string, version: number, latest?: number) =>
  new AppError(ErrorCode.AGENT_VERSION_NOT_FOUND, 'the agent has no such version', { id, version, ...(latest === undefined ? {} : { latest }) });

/**
 * Versions as people name and choose them (decision 0046): the pin new runs
 * use (a rollback is a pin of an older version), tags on versions, and the
 * diff between two versions. Pins and tags are governance changes: each
 * records its audit fact (`agent.pinned|unpinned|tagged|untagged`) with the
 * change, naming its author; a repeat that changes nothing records nothing.
 * A pin's fact is also an agent change the matcher applies in fact order.
 */
export class AgentVersions {
  constructor(
    private readonly deps: { agents: AgentStore; agentVersions: AgentVersionStore; outbox: FactFlusher; userName: UserNameLookup; gate: Pick<EvalGateCheck, 'check'> },
  ) {}

  /**
   * Pins `version` (null: unpins, runs use the latest again). A pin that
   * changes what runs passes the agent's eval gate first (decision 0058).
   */
  async pin(ctx: AgentCommandContext, id: string, version: number | null, override?: EvalGateOverride): Promise<AgentRecord> {
    const author = await namedAuthorOf(ctx.principal, this.deps.userName);
    const facts = new ChangeFacts(ctx.correlationId);
    const kind = version === null ? AGENT_FACT_KINDS.unpinned : AGENT_FACT_KINDS.pinned;
    let overridden: AcceptedFact | null = null;
    // Checked under the agent's row lock, with the pin: a save racing it cannot slip between them.
    const gate = async (current: AgentRecord) => {
      overridden = await this.gateOf(ctx, current, version, override);
    };
    const result = await this.deps.agentVersions.pin(
      { workspaceId: ctx.principal.workspaceId, id, version },
      ({ agent, changed }) => (changed ? facts.record(agentFact(author, kind, agent), ...(overridden ? [overridden] : [])) : []),
      gate,
    );
    if (!result.ok) throw result.reason === 'not_found' ? notFound(id) : versionNotFound(id, version!, result.latest);
    await this.deps.outbox.flush(facts.ids);
    return result.agent;
  }

  /** The gate's check of the version the pin makes run (the latest, for an unpin); null: nothing to check or record. */
  private async gateOf(ctx: AgentCommandContext, agent: AgentRecord, version: number | null, override: EvalGateOverride | undefined): Promise<AcceptedFact | null> {
    const runs = version ?? agent.version;
    // Nothing changes what runs, or no such version (the pin answers AGENT_VERSION_NOT_FOUND).
    if (runs === runVersionOf(agent) || runs > agent.version) return null;
    return this.deps.gate.check(ctx, agent, runs, override);
  }

  async listTags(ctx: AgentCommandContext, id: string): Promise<TagRecord[]> {
    const tags = await this.deps.agentVersions.listTags(ctx.principal.workspaceId, id);
    if (!tags) throw notFound(id);
    return tags;
  }

  /** Puts `tag` on `version`, moving it when it named another version. */
  async putTag(ctx: AgentCommandContext, id: string, version: number, tag: string): Promise<TagRecord[]> {
    const author = await namedAuthorOf(ctx.principal, this.deps.userName);
    const facts = new ChangeFacts(ctx.correlationId);
    const input = { workspaceId: ctx.principal.workspaceId, id, tag, version, userId: ctx.principal.userId, maxTags: MAX_TAGS_PER_AGENT };
    const result = await this.deps.agentVersions.putTag(input, ({ agent, previousVersion }) =>
      facts.record(agentTagFact(author, AGENT_TAG_FACT_KINDS.tagged, id, { name: agent.name, tag, version, previousVersion })),
    );
    if (!result.ok) {
      if (result.reason === 'not_found') throw notFound(id);
      if (result.reason === 'version_not_found') throw versionNotFound(id, version, result.latest);
      throw new AppError(ErrorCode.VALIDATION_FAILED, `an agent carries at most ${MAX_TAGS_PER_AGENT} tags`, [
        { code: 'too_many_tags', path: ['tag'], message: `at most ${MAX_TAGS_PER_AGENT} tags per agent: remove one first` },
      ]);
    }
    await this.deps.outbox.flush(facts.ids);
    return result.tags;
  }

  /** Removes `tag` from `version`; AGENT_TAG_NOT_FOUND when that version does not carry it. */
  async deleteTag(ctx: AgentCommandContext, id: string, version: number, tag: string): Promise<TagRecord[]> {
    const author = await namedAuthorOf(ctx.principal, this.deps.userName);
    const facts = new ChangeFacts(ctx.correlationId);
    const result = await this.deps.agentVersions.deleteTag({ workspaceId: ctx.principal.workspaceId, id, tag, version }, ({ agent, version }) =>
      facts.record(agentTagFact(author, AGENT_TAG_FACT_KINDS.untagged, id, { name: agent.name, tag, version })),
    );
    if (!result.ok) {
      if (result.reason === 'not_found') throw notFound(id);
      throw new AppError(ErrorCode.AGENT_TAG_NOT_FOUND, 'that version of the agent carries no such tag', { id, tag, version });
    }
    await this.deps.outbox.flush(facts.ids);
    return result.tags;
  }

  /** What changed from version `from` to version `to` (of a live or deleted agent, like the versions it reads). */
  async diff(ctx: AgentCommandContext, id: string, from: number, to: number): Promise<AgentVersionDiffResponse> {
    const specOf = async (version: number): Promise<Record<string, unknown>> => {
      const found = await this.deps.agents.getVersion(ctx.principal.workspaceId, id, version);
      if (!found.ok) throw found.reason === 'agent_not_found' ? notFound(id) : versionNotFound(id, version);
      return found.version.spec as unknown as Record<string, unknown>;
    };
    const [a, b] = await Promise.all([specOf(from), specOf(to)]);
    return {
      agentId: id,
      from,
      to,
      changedFields: changedTopLevelFields(a, b),
      patch: jsonDiff(a, b),
      fromSpecHash: specHash(a),
      toSpecHash: specHash(b),
    };
  }
}
