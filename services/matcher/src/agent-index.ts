import type { AgentSpec, Fact } from '@switchyard/contracts';
import { compileFilter, compileKindGlob, type FactPredicate, type KindMatcher } from '@switchyard/core';

/**
 * An agent as the matcher knows it: its latest version's spec plus the head's
 * `enabled` flag. The flag is a separate field because it is agent state, not
 * part of a stored version (decision 0007): `spec.enabled` is ignored here.
 */
export interface AgentRecord {
  readonly agentId: string;
  /** The workspace the agent belongs to; lookups are scoped by it. */
  readonly workspaceId: string;
  /** The version `spec` is; an upsert older than the indexed version is ignored. */
  readonly version: number;
  /** Only enabled agents are indexed; a disabled record takes the agent out of lookups. */
  readonly enabled: boolean;
  readonly spec: AgentSpec;
}

/** One trigger of an indexed agent, named by its position in `spec.triggers`. */
export interface TriggerMatch {
  readonly agent: AgentRecord;
  readonly triggerIndex: number;
}

/** What `upsert` did: indexed the record, took a disabled agent out, or ignored an older version. */
export type UpsertOutcome = 'indexed' | 'disabled' | 'stale';

interface CompiledTrigger extends TriggerMatch {
  readonly kind: KindMatcher;
  /** Undefined when the trigger has no filter: every fact of a matching kind passes. */
  readonly filter: FactPredicate | undefined;
}

/** The indexed agent and the triggers it placed in its workspace's buckets (empty when disabled). */
interface AgentEntry {
  readonly record: AgentRecord;
  readonly triggers: readonly CompiledTrigger[];
}

/**
 * The triggers of one workspace, spread over buckets so that a lookup reads
 * only the triggers that could match the kind. Every trigger sits in exactly
 * one bucket, so a lookup never sees one trigger twice.
 */
class WorkspaceTriggers {
  /** Globs without wildcards, by the kind they equal: match without testing. */
  readonly exact = new Map<string, Set<CompiledTrigger>>();
  /** Globs starting with a literal segment, by it: a matching kind starts with that segment. */
  readonly byFirst = new Map<string, Set<CompiledTrigger>>();
  /** Globs starting with a wildcard and ending with a literal segment (`*.failed`), by that last segment. */
  readonly byLast = new Map<string, Set<CompiledTrigger>>();
  /** Globs starting and ending with a wildcard (`*`, `**`, `*.x.**`): tested for every kind, expected to be few. */
  readonly wildcard = new Set<CompiledTrigger>();
  /** Indexed (enabled) agents, so an emptied workspace can be dropped. */
  agents = 0;

  add(trigger: CompiledTrigger): void {
    const [map, key] = this.placement(trigger.kind.glob);
    if (map === undefined) {
      this.wildcard.add(trigger);
      return;
    }
    const bucket = map.get(key);
    if (bucket === undefined) map.set(key, new Set([trigger]));
    else bucket.add(trigger);
  }

  delete(trigger: CompiledTrigger): void {
    const [map, key] = this.placement(trigger.kind.glob);
    if (map === undefined) {
      this.wildcard.delete(trigger);
      return;
    }
    const bucket = map.get(key);
    bucket?.delete(trigger);
    // Drop empty buckets: kinds churn, and a map of empty sets would grow without bound.
    if (bucket?.size === 0) map.delete(key);
  }

  /** Appends the triggers whose kind glob matches `kind`, reading only the buckets it could be in. */
  collect(kind: string, out: CompiledTrigger[]): void {
    // Exact globs equal the kind by construction; a loop, not a spread, since a popular kind may hold thousands.
    for (const trigger of this.exact.get(kind) ?? []) out.push(trigger);
    const dot = kind.indexOf('.');
    const first = dot < 0 ? kind : kind.slice(0, dot);
    const last = kind.slice(kind.lastIndexOf('.') + 1);
    for (const bucket of [this.byFirst.get(first), this.byLast.get(last), this.wildcard]) {
      if (bucket === undefined) continue;
      for (const trigger of bucket) if (trigger.kind.test(kind)) out.push(trigger);
    }
  }

  /** Which map (and key) a glob belongs to; no map means the wildcard list. */
  private placement(glob: string): [Map<string, Set<CompiledTrigger>> | undefined, string] {
    const segments = glob.split('.');
    const isWild = (segment: string | undefined): boolean => segment === '*' || segment === '**';
    if (!segments.some(isWild)) return [this.exact, glob];
    const first = segments[0] as string;
    if (!isWild(first)) return [this.byFirst, first];
    const last = segments[segments.length - 1] as string;
    if (!isWild(last)) return [this.byLast, last];
    return [undefined, ''];
  }
}

/**
 * An in-memory index of the enabled agents of every workspace, by the kind
 * globs of their triggers. The matcher builds it from the `agents` table at
 * start and reloads one agent per `agent.*` fact (`upsert`, or `remove` for a
 * deleted one). A lookup costs the triggers sharing the kind's exact value,
 * first segment or last segment, plus the globs that start and end with a
 * wildcard — never a scan of every agent. Each trigger's glob and filter are
 * compiled once, when its agent is upserted.
 *
 * Reloads of one agent must be applied in the order they were read: `upsert`
 * ignores an older version, but enable/disable make no new version, so two
 * out-of-order reads of the same version cannot be told apart here.
 */
export class AgentIndex {
  private readonly workspaces = new Map<string, WorkspaceTriggers>();
  private readonly agents = new Map<string, AgentEntry>();

  /** @param records agents to index at once, e.g. every live agent read at start. */
  constructor(records: Iterable<AgentRecord> = []) {
    for (const record of records) this.upsert(record);
  }

  /** Number of indexed (enabled) agents across all workspaces. */
  get size(): number {
    let total = 0;
    for (const workspace of this.workspaces.values()) total += workspace.agents;
    return total;
  }

  /** The indexed record of an enabled agent; undefined for an unknown, disabled or removed one. */
  get(agentId: string): AgentRecord | undefined {
    const entry = this.agents.get(agentId);
    return entry?.record.enabled === true ? entry.record : undefined;
  }

  /**
   * Indexes the agent's latest state, replacing all its previous triggers. A
   * disabled record takes the agent out of lookups but remembers its version.
   *
   * @returns 'stale' (and changes nothing) when `record.version` is older than
   *   the version already held for the agent.
   * @throws AppError VALIDATION_FAILED when a filter does not compile (a spec
   *   that skipped parsing); the index is then left as it was.
   */
  upsert(record: AgentRecord): UpsertOutcome {
    const previous = this.agents.get(record.agentId);
    if (previous !== undefined && record.version < previous.record.version) return 'stale';
    // Compile before touching the index, so a bad filter leaves the old state in place.
    const triggers = record.enabled ? compileTriggers(record) : [];
    if (previous !== undefined) this.unindex(previous);
    const entry: AgentEntry = { record, triggers };
    this.agents.set(record.agentId, entry);
    if (!record.enabled) return 'disabled';
    let workspace = this.workspaces.get(record.workspaceId);
    if (workspace === undefined) {
      workspace = new WorkspaceTriggers();
      this.workspaces.set(record.workspaceId, workspace);
    }
    for (const trigger of triggers) workspace.add(trigger);
    workspace.agents += 1;
    return 'indexed';
  }

  /** Forgets the agent entirely (it was deleted); returns whether it was known. */
  remove(agentId: string): boolean {
    const entry = this.agents.get(agentId);
    if (entry === undefined) return false;
    this.unindex(entry);
    this.agents.delete(agentId);
    return true;
  }

  /**
   * The triggers of the workspace's enabled agents whose kind glob matches
   * `kind`, filters not applied, ordered by agent id then trigger index. An
   * agent appears once per matching trigger.
   */
  candidates(workspaceId: string, kind: string): TriggerMatch[] {
    return this.lookup(workspaceId, kind).map(({ agent, triggerIndex }) => ({ agent, triggerIndex }));
  }

  /**
   * The workspace's enabled agents that `fact` activates: those with at least
   * one trigger whose kind glob and filter both match. Each agent appears once,
   * with its lowest matching trigger index, ordered by agent id.
   *
   * @param workspaceId the fact's workspace (the index is keyed by id; facts carry the slug).
   */
  match(workspaceId: string, fact: Fact): TriggerMatch[] {
    const matched: TriggerMatch[] = [];
    let lastAgentId: string | undefined;
    // lookup() sorts by agent, so an agent's triggers are adjacent and the first hit is its lowest index.
    for (const trigger of this.lookup(workspaceId, fact.kind)) {
      if (trigger.agent.agentId === lastAgentId) continue;
      if (trigger.filter === undefined || trigger.filter(fact)) {
        matched.push({ agent: trigger.agent, triggerIndex: trigger.triggerIndex });
        lastAgentId = trigger.agent.agentId;
      }
    }
    return matched;
  }

  private lookup(workspaceId: string, kind: string): CompiledTrigger[] {
    const workspace = this.workspaces.get(workspaceId);
    if (workspace === undefined) return [];
    const found: CompiledTrigger[] = [];
    workspace.collect(kind, found);
    // Sorting the few hits makes results independent of upsert order, and groups each agent's triggers.
    return found.sort((a, b) =>
      a.agent.agentId === b.agent.agentId ? a.triggerIndex - b.triggerIndex : a.agent.agentId < b.agent.agentId ? -1 : 1,
    );
  }

  private unindex(entry: AgentEntry): void {
    if (!entry.record.enabled) return;
    const workspace = this.workspaces.get(entry.record.workspaceId);
    if (workspace === undefined) return;
    for (const trigger of entry.triggers) workspace.delete(trigger);
    workspace.agents -= 1;
    if (workspace.agents === 0) this.workspaces.delete(entry.record.workspaceId);
  }
}

function compileTriggers(record: AgentRecord): CompiledTrigger[] {
  return record.spec.triggers.map((trigger, triggerIndex) => ({
    agent: record,
    triggerIndex,
    kind: compileKindGlob(trigger.kind),
    filter: trigger.filter === undefined ? undefined : compileFilter(trigger.filter),
  }));
}
