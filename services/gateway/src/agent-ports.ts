import type { AgentSpec } from '@switchyard/contracts';
import type { FactsOf } from './fact-ports';

/** An agent's spec as stored in a version: `enabled` is agent state, kept on the agent. */
export type StoredAgentSpec = Omit<AgentSpec, 'enabled'>;

/** A live agent: its head row and the spec of its latest version. */
export interface AgentRecord {
  id: string;
  workspaceId: string;
  name: string;
  /** The latest version. */
  version: number;
  /** The version new runs use when set (decision 0046); null: the latest. */
  pinnedVersion: number | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** The latest version's spec. */
  spec: StoredAgentSpec;
}

/** One immutable version of an agent. */
export interface AgentVersionRecord {
  agentId: string;
  version: number;
  createdBy: string;
  createdAt: Date;
  spec: StoredAgentSpec;
}

/** A version as listed: the name it had, not its whole spec. */
export interface AgentVersionSummaryRecord {
  version: number;
  name: string;
  createdBy: string;
  createdAt: Date;
}

/** Outcome of saving a new version; the refusals are expected, so they are values. */
export type AgentUpdateResult =
  /** `versionCreated` is false when the spec was identical to the latest version's (only the flag may have changed). */
  | { ok: true; agent: AgentRecord; versionCreated: boolean; enabledChanged: boolean }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'version_conflict'; current: number }
  | { ok: false; reason: 'name_taken' };

/** A `PUT` of an agent: the new spec, the flag when given, and the version the client read. */
export interface AgentUpdateInput {
  workspaceId: string;
  id: string;
  userId: string;
  spec: StoredAgentSpec;
  enabled?: boolean;
  ifMatch?: number;
}

/**
 * A check of the agent as it is, run by a write under the agent's row lock
 * before it writes (the promotion gate, decision 0058): it throws to refuse the
 * write. Check and write are one step, so no concurrent change of the agent
 * slips between them.
 */
export type AgentGuard = (current: AgentRecord) => Promise<void>;

/** Outcome of reading one version; the refusals are expected, so they are values. */
export type AgentVersionLookup =
  | { ok: true; version: AgentVersionRecord }
  | { ok: false; reason: 'agent_not_found' | 'version_not_found' };

/** How close agents are to their limits: today's (UTC) spend and the runs waiting. */
export interface AgentUsage {
  spentTodayUsd: number;
  queuedRuns: number;
}

/** Reads agents' usage (the figures `GET /agents` shows beside budget.perDayUsd and flow.queueCap). */
export interface AgentUsageReader {
  /** Usage per agent id of the workspace; an agent with no spend or queue has zeros. */
  usageOf(workspaceId: string, agentIds: readonly string[]): Promise<Map<string, AgentUsage>>;
}

/**
 * The agent registry in the system of record. Every method is scoped by
 * workspace id: another workspace's agent id is simply not found. Deleted
 * agents are not found either, except by the history reads (`listVersions`,
 * `getVersion`, `deletedAt`), which keep them readable for audit.
 */
export interface AgentStore {
  /** Creates the agent with version 1. Every write records the facts `facts` gives for its result in its transaction. */
  create(
    input: { workspaceId: string; userId: string; spec: StoredAgentSpec; enabled: boolean },
    facts: FactsOf<AgentRecord>,
  ): Promise<{ ok: true; agent: AgentRecord } | { ok: false; reason: 'name_taken' }>;
  /** Live agents in id order, after the given id. */
  list(workspaceId: string, options: { after?: string; limit: number }): Promise<AgentRecord[]>;
  get(workspaceId: string, id: string): Promise<AgentRecord | null>;
  /**
   * Saves the next version, atomically with the head. With `ifMatch`, only if
   * the latest version is still that one; concurrent saves are serialized so
   * that exactly one of several with the same `ifMatch` succeeds. A spec equal
   * to the latest version's (defaults filled in) makes no version. `enabled`
   * changes the flag only when given. `guard` runs first, under the lock.
   */
  update(input: AgentUpdateInput, facts: FactsOf<Extract<AgentUpdateResult, { ok: true }>>, guard?: AgentGuard): Promise<AgentUpdateResult>;
  /** Sets the flag; `changed` is false when it already had that value. Null when not found. `guard` runs first, under the agent's row lock. */
  setEnabled(
    workspaceId: string,
    id: string,
    enabled: boolean,
    facts: FactsOf<{ agent: AgentRecord; changed: boolean }>,
    guard?: AgentGuard,
  ): Promise<{ agent: AgentRecord; changed: boolean } | null>;
  /**
   * Disables and hides the agent and frees its name; its versions stay for the
   * runs' history. Returns what it was; null when not found.
   */
  delete(workspaceId: string, id: string, facts: FactsOf<{ name: string; version: number }>): Promise<{ name: string; version: number } | null>;
  /** Versions after `after`, ascending, without their specs, of a live or deleted agent; null when the agent is not found. */
  listVersions(workspaceId: string, id: string, options: { after: number; limit: number }): Promise<AgentVersionSummaryRecord[] | null>;
  /** One version of a live or deleted agent. */
  getVersion(workspaceId: string, id: string, version: number): Promise<AgentVersionLookup>;
  /** When the workspace's agent was deleted; null when it is live or unknown. */
  deletedAt(workspaceId: string, id: string): Promise<Date | null>;
}
