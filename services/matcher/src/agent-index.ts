import type { AgentSpec, Fact, TeammateWatch } from '@switchyard/contracts';
import { compileFilter, compileKindGlob } from '@switchyard/core';
import { bucketsOf, KindBuckets, unindexOwner, type Subscription } from './kind-buckets';

/**
 * An agent as the matcher knows it: the spec of its version for runs (pinned,
 * else latest: decision 0046) plus the head's `enabled` flag. The flag is a
 * separate field because it is agent state, not part of a stored version
 * (decision 0007): `spec.enabled` is ignored here.
 */
export interface AgentRecord {
  readonly agentId: string;
  /** The workspace the agent belongs to; lookups are scoped by it. */
  readonly workspaceId: string;
  /** The version `spec` is: the one its runs record. */
  readonly version: number;
  /**
   * The agent's latest version when the record was read: an upsert whose
   * latest is older than the indexed one's is ignored. A pin may name an older
   * `version`, so staleness is judged by this. @defaultValue `version`
   */
  readonly latestVersion?: number;
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

/**
 * A teammate as the matcher knows it (decision 0035): a live roster row and
 * its watch. A stopped teammate is removed, not kept disabled.
 */
export interface TeammateRecord {
  readonly teammateId: string;
  /** The workspace the teammate belongs to; lookups are scoped by it. */
  readonly workspaceId: string;
  readonly name: string;
  readonly agentId: string;
  readonly sessionId: string;
  readonly watch: readonly TeammateWatch[];
}

/** One watch entry of an indexed teammate, named by its position in `watch`. */
export interface WatchMatch {
  readonly teammate: TeammateRecord;
  readonly watchIndex: number;
  /** The entry's cooldown (0: none). */
  readonly cooldownMs: number;
}

interface CompiledTrigger extends TriggerMatch, Subscription {}
interface CompiledWatch extends WatchMatch, Subscription {}

/** The indexed agent and the triggers it placed in its workspace's buckets (empty when disabled). */
interface AgentEntry {
  readonly record: AgentRecord;
  readonly triggers: readonly CompiledTrigger[];
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
 * It also holds the live teammates' watches (the event bridge, decision 0035)
 * in buckets of their own: `upsertTeammate` on `teammate.spawned`,
 * `removeTeammate` on `teammate.stopped`, `matchTeammates` per fact.
 *
 * Reloads of one agent must be applied in the order they were read: `upsert`
 * ignores an older version, but enable/disable make no new version, so two
 * out-of-order reads of the same version cannot be told apart here.
 */
export class AgentIndex {
  private readonly workspaces = new Map<string, KindBuckets<CompiledTrigger>>();
  private readonly agents = new Map<string, AgentEntry>();
  private readonly watchWorkspaces = new Map<string, KindBuckets<CompiledWatch>>();
  private readonly teammates = new Map<string, readonly CompiledWatch[]>();

  /** @param records agents to index at once, e.g. every live agent read at start. */
  constructor(records: Iterable<AgentRecord> = []) {
    for (const record of records) this.upsert(record);
  }

  /** Number of indexed (enabled) agents across all workspaces. */
  get size(): number {
    let total = 0;
    for (const workspace of this.workspaces.values()) total += workspace.owners;
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
    const latestOf = (r: AgentRecord) => r.latestVersion ?? r.version;
    if (previous !== undefined && latestOf(record) < latestOf(previous.record)) return 'stale';
    // Compile before touching the index, so a bad filter leaves the old state in place.
    const triggers = record.enabled ? compileTriggers(record) : [];
    if (previous !== undefined) this.unindex(previous);
    const entry: AgentEntry = { record, triggers };
    this.agents.set(record.agentId, entry);
    if (!record.enabled) return 'disabled';
    const workspace = bucketsOf(this.workspaces, record.workspaceId);
    for (const trigger of triggers) workspace.add(trigger);
    workspace.owners += 1;
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
    return (this.workspaces.get(workspaceId)?.lookup(kind) ?? []).map(({ agent, triggerIndex }) => ({ agent, triggerIndex }));
  }

  /**
   * The workspace's enabled agents that `fact` activates: those with at least
   * one trigger whose kind glob and filter both match. Each agent appears once,
   * with its lowest matching trigger index, ordered by agent id.
   *
   * @param workspaceId the fact's workspace (the index is keyed by id; facts carry the slug).
   */
  match(workspaceId: string, fact: Fact): TriggerMatch[] {
    return (this.workspaces.get(workspaceId)?.match(fact) ?? []).map(({ agent, triggerIndex }) => ({ agent, triggerIndex }));
  }

  /** Number of indexed teammates (live, watching something) across all workspaces. */
  get teammateCount(): number {
    return this.teammates.size;
  }

  /**
   * Indexes a live teammate's watch (the event bridge), replacing what was
   * indexed for it. @throws AppError VALIDATION_FAILED when a filter does not
   * compile; the index is then left as it was.
   */
  upsertTeammate(record: TeammateRecord): void {
    const watches = compileWatch(record);
    this.removeTeammate(record.teammateId);
    // A teammate that watches nothing is reached by messages only.
    if (watches.length === 0) return;
    this.teammates.set(record.teammateId, watches);
    const workspace = bucketsOf(this.watchWorkspaces, record.workspaceId);
    for (const watch of watches) workspace.add(watch);
    workspace.owners += 1;
  }

  /** Forgets a teammate (it was stopped); returns whether it was known. */
  removeTeammate(teammateId: string): boolean {
    const watches = this.teammates.get(teammateId);
    if (watches === undefined) return false;
    this.teammates.delete(teammateId);
    unindexOwner(this.watchWorkspaces, watches[0]!.teammate.workspaceId, watches);
    return true;
  }

  /**
   * The workspace's live teammates whose watch `fact` matches (kind glob and
   * filter), each once with its lowest matching entry, ordered by teammate id.
   */
  matchTeammates(workspaceId: string, fact: Fact): WatchMatch[] {
    return (this.watchWorkspaces.get(workspaceId)?.match(fact) ?? []).map(({ teammate, watchIndex, cooldownMs }) => ({ teammate, watchIndex, cooldownMs }));
  }

  private unindex(entry: AgentEntry): void {
    if (entry.record.enabled) unindexOwner(this.workspaces, entry.record.workspaceId, entry.triggers);
  }
}

function compileTriggers(record: AgentRecord): CompiledTrigger[] {
  return record.spec.triggers.map((trigger, triggerIndex) => ({
    agent: record,
    triggerIndex,
    ownerId: record.agentId,
    position: triggerIndex,
    kind: compileKindGlob(trigger.kind),
    filter: trigger.filter === undefined ? undefined : compileFilter(trigger.filter),
  }));
}

function compileWatch(record: TeammateRecord): CompiledWatch[] {
  return record.watch.map((entry, watchIndex) => ({
    teammate: record,
    watchIndex,
    cooldownMs: entry.cooldownMs ?? 0,
    ownerId: record.teammateId,
    position: watchIndex,
    kind: compileKindGlob(entry.kind),
    filter: entry.filter === undefined ? undefined : compileFilter(entry.filter),
  }));
}
