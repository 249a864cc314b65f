import type { NewRun } from '@switchyard/runs';
import type { TryFact, WouldHave } from '@switchyard/contracts';
import type { StoredAgentSpec } from './agent-ports';
import type { RunRecord } from './run-ports';

/** A try run to record (decision 0027): the run (`agentVersion` 0 for a draft) and what it runs. */
export interface NewTry {
  run: NewRun;
  /** The saved version run; null for a draft. */
  version: number | null;
  spec: StoredAgentSpec;
  /** A hand-built fact with the id the run sees it by; null otherwise. */
  fact: (TryFact & { id: string }) | null;
  createdBy: string;
}

/** A try as listed: its run, the version it ran (null: a draft) and the exact spec. */
export interface TryRecord {
  run: RunRecord;
  version: number | null;
  spec: StoredAgentSpec;
}

/** Try runs and their records (`runs` + `agent_tries`). Every method is scoped by workspace id. */
export interface TryStore {
  /** The run (`queued`, in a lane of its own) and its try record, in one transaction; a try records no fact. */
  create(input: NewTry): Promise<RunRecord>;
  /** Tries kept under an agent's or draft's id, newest first, older than `after`. */
  list(workspaceId: string, agentId: string, options: { after?: string; limit: number }): Promise<TryRecord[]>;
  /** Whether the workspace has tries kept under this id (a draft's id has no agent). */
  hasTries(workspaceId: string, agentId: string): Promise<boolean>;
  /** The calls a run did not execute (its transcript's `wouldHave` tool entries), in order. */
  wouldHave(workspaceId: string, runId: string): Promise<WouldHave[]>;
}
