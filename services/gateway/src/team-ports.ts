import type { Actor, CausedBy, ListTasksQuery, TaskFactPayload, TaskOwner, TaskStatus } from '@switchyard/contracts';
import type { FactsOf } from './fact-ports';

/** A task as stored: the API's Task without the workspace slug (the principal supplies it). */
export type TaskRecord = TaskFactPayload;

/** What a new task is made of. */
export interface NewTask {
  id: string;
  workspaceId: string;
  subject: string;
  description: string;
  blockedBy: string[];
  createdBy: Actor;
  causedBy: CausedBy | null;
}

/** What a command decided to change on one task; absent fields stay as they are. */
export interface TaskMutation {
  subject?: string;
  description?: string;
  blockedBy?: string[];
  status?: TaskStatus;
  /** null clears the owner. */
  owner?: TaskOwner | null;
  claimedAt?: Date | null;
  endedAt?: Date | null;
  /** Removes the task (and its id from its dependents' `blockedBy`). */
  delete?: true;
}

/**
 * A change's result: the task after it (as it was, for a deletion), and the
 * tasks whose last open blocker it ended — each now claimable.
 */
export interface TaskChange {
  task: TaskRecord;
  previous: TaskRecord;
  /** False when the command decided nothing changes (an owner claiming again): no write, no facts. */
  changed: boolean;
  deleted: boolean;
  unblocked: TaskRecord[];
}

/** The task list's filter (the query, `blocked` as a boolean). */
export type TaskListFilter = Omit<ListTasksQuery, 'blocked'> & { blocked?: boolean };

/**
 * The task ledger in the system of record, scoped by workspace id: another
 * workspace's task id is simply not found. Changes run under the task's row
 * lock, so concurrent claims are decided one after the other (one wins).
 */
export interface TaskStore {
  /** Inserts the task with the facts `facts` gives, after checking `blockedBy` (TASK_BLOCKER_INVALID). */
  create(task: NewTask, facts: FactsOf<TaskRecord>): Promise<TaskRecord>;
  list(workspaceId: string, filter: TaskListFilter): Promise<TaskRecord[]>;
  get(workspaceId: string, id: string): Promise<TaskRecord | null>;
  /**
   * Locks the task, asks `decide` what changes (it throws an AppError to
   * refuse; nothing is written then), checks a new `blockedBy`, writes the
   * change and the facts `facts` gives for it in one transaction. Null when
   * the workspace has no such task.
   */
  change(workspaceId: string, id: string, decide: (task: TaskRecord) => TaskMutation | null, facts: FactsOf<TaskChange>): Promise<TaskChange | null>;
}

/** A collaborator rule of one agent toward another of its workspace. */
export interface CollaboratorRuleRecord {
  collaboratorId: string;
  enabled: boolean;
}

/** A live agent of the workspace, as delegation and the collaborators list see it. */
export interface PeerAgent {
  id: string;
  name: string;
  enabled: boolean;
}

/** Collaborator rules in the system of record, scoped by workspace id. */
export interface CollaboratorStore {
  /** The workspace's other live agents in id order after `after`, each with the agent's rule toward it (null: none). */
  listPeers(workspaceId: string, agentId: string, options: { after?: string; limit: number }): Promise<Array<PeerAgent & { rule: boolean | null }>>;
  /** Writes the rule; `changed` false when it already had that state (no fact then). */
  put(
    input: { workspaceId: string; agentId: string; collaboratorId: string; enabled: boolean; userId: string },
    facts: FactsOf<{ changed: boolean }>,
  ): Promise<{ changed: boolean }>;
  /** Removes the rule; `removed` false when there was none (no fact then). */
  remove(input: { workspaceId: string; agentId: string; collaboratorId: string }, facts: FactsOf<{ removed: boolean }>): Promise<{ removed: boolean }>;
  /** The live agent of the workspace with this id or name; null when none. */
  findAgent(workspaceId: string, idOrName: string): Promise<PeerAgent | null>;
  /** The agent's rule toward the other; null when none. */
  rule(workspaceId: string, agentId: string, collaboratorId: string): Promise<boolean | null>;
  /** The live, enabled agents the agent has an enabled rule toward. */
  enabledRoster(workspaceId: string, agentId: string): Promise<PeerAgent[]>;
  /**
   * The `tools.platform` globs of each run the run was delegated from (its parent, the
   * parent's parent, …; the version each ran), nearest first; empty for a run that was not delegated.
   */
  ancestorPlatformGlobs(workspaceId: string, runId: string): Promise<Array<{ runId: string; globs: string[] }>>;
}
