import type { TemplateOrigin } from '@switchyard/contracts';
import type { AgentGuard, AgentRecord, StoredAgentSpec } from './agent-ports';
import type { FactsOf } from './fact-ports';

/** A tag as stored. */
export interface TagRecord {
  tag: string;
  version: number;
  setBy: string;
  setAt: Date;
}

/** What a pin or unpin did; the refusals are expected, so they are values. */
export type PinResult =
  | { ok: true; agent: AgentRecord; changed: boolean }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'version_not_found'; latest: number };

/** What putting a tag did: `previousVersion` the version it named before (null: new); `changed` false when it named `version` already. */
export type PutTagResult =
  | { ok: true; agent: AgentRecord; tags: TagRecord[]; previousVersion: number | null; changed: boolean }
  | { ok: false; reason: 'not_found' | 'too_many' }
  | { ok: false; reason: 'version_not_found'; latest: number };

/** What removing a tag did. */
export type DeleteTagResult = { ok: true; agent: AgentRecord; tags: TagRecord[]; version: number } | { ok: false; reason: 'not_found' | 'tag_not_found' };

/**
 * Pins and tags of live agents (decision 0046). Each write takes the agent's
 * head row lock (the registry's), so a pin or tag cannot name a version a
 * concurrent change has not written, and records its facts in its transaction.
 */
export interface AgentVersionStore {
  /** Pins `version` (null: unpins). `changed` false when the pin already was that. `guard` runs once the agent and version are found, under the lock. */
  pin(input: { workspaceId: string; id: string; version: number | null }, facts: FactsOf<{ agent: AgentRecord; changed: boolean }>, guard?: AgentGuard): Promise<PinResult>;
  /** The agent's tags by name; null when the workspace has no live agent with that id. */
  listTags(workspaceId: string, id: string): Promise<TagRecord[] | null>;
  /** Puts `tag` on `version` (moving it from another version). `maxTags` bounds a new tag. */
  putTag(
    input: { workspaceId: string; id: string; tag: string; version: number; userId: string; maxTags: number },
    facts: FactsOf<{ agent: AgentRecord; previousVersion: number | null }>,
  ): Promise<PutTagResult>;
  /** Removes `tag` from `version` (`tag_not_found` when it names no tag, or another version). */
  deleteTag(input: { workspaceId: string; id: string; tag: string; version: number }, facts: FactsOf<{ agent: AgentRecord; version: number }>): Promise<DeleteTagResult>;
}

/** One agent as an export reads it: its head, the chosen versions' specs, its tags and rules. */
export interface BundleSourceAgent {
  id: string;
  name: string;
  enabled: boolean;
  latestVersion: number;
  pinnedVersion: number | null;
  templateOrigin: TemplateOrigin | null;
  versions: Array<{ version: number; spec: StoredAgentSpec }>;
  tags: Array<{ tag: string; version: number }>;
  /** Its collaborator rules, towards any agent (the export keeps those among exported agents). */
  collaborators: Array<{ agentId: string; enabled: boolean }>;
}

/** An agent an import writes: its versions in order (numbered 1, 2, …), its pin and tags by those numbers. */
export interface ImportedAgentPlan {
  key: string;
  id: string;
  templateOrigin: TemplateOrigin | null;
  specs: StoredAgentSpec[];
  pinnedVersion: number | null;
  tags: Array<{ tag: string; version: number }>;
  /** Rules towards other agents of the import, by their new ids. */
  collaborators: Array<{ agentId: string; enabled: boolean }>;
}

/** Reads for an export and the one-transaction write of an import. */
export interface AgentBundleStore {
  /**
   * The live agents among `ids` with their versions (all, the latest, the ones
   * in use, or the listed numbers); the ids not found are left out.
   */
  readForExport(workspaceId: string, ids: string[], versions: 'all' | 'latest' | 'used' | number[]): Promise<BundleSourceAgent[]>;
  /**
   * Creates every planned agent (disabled), its versions, pin, tags and rules,
   * and the facts `facts` gives, in one transaction: all or nothing. A name taken
   * in the workspace refuses the whole import.
   */
  importAgents(
    input: { workspaceId: string; userId: string; agents: ImportedAgentPlan[] },
    facts: FactsOf<AgentRecord[]>,
  ): Promise<{ ok: true; agents: AgentRecord[] } | { ok: false; reason: 'name_taken'; name: string }>;
}
