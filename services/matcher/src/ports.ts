import { AGENT_FACT_KINDS, RUN_FACT_KINDS, TEAMMATE_FACT_KINDS, WORKSPACE_FACT_KINDS, type ActivationJob, type ActivationSkipReason, type Fact, type RunStatus } from '@switchyard/contracts';
import type { TriggerRunRow } from '@switchyard/runs';
import type { AgentRecord, TeammateRecord } from './agent-index';

/**
 * The facts that change what later facts match: agent changes (`agent.created|updated|enabled|disabled|deleted`),
 * teammates spawned and stopped, and the kill switch (`workspace.settings_changed`).
 */
export const CHANGE_KINDS: ReadonlySet<string> = new Set([...Object.values(AGENT_FACT_KINDS), ...Object.values(TEAMMATE_FACT_KINDS), WORKSPACE_FACT_KINDS.settingsChanged]);

/** A run's park on a wait for a fact: its workspace's waits are read again (decision 0055). */
export const PARKED_KIND = RUN_FACT_KINDS.awaiting_event;

/** What every replica reads in fact order, whichever replica the fact went to: the changes and the parks. */
export const ORDERED_KINDS: ReadonlySet<string> = new Set([...CHANGE_KINDS, PARKED_KIND]);

/** A run the matcher records: `queued` (activated) or `dropped` (queue full), as libs/runs inserts it (decision 0044). */
export type { NewTriggerRun, TriggerRunRow } from '@switchyard/runs';

/** A guard's refusal of a matched (agent, fact) pair, recorded so that it can be explained (activation_skips). */
export interface ActivationSkipRecord {
  workspaceId: string;
  eventId: string;
  agentId: string;
  agentVersion: number;
  reason: ActivationSkipReason;
}

/** The run that holds the (agent, fact) slot: the one just created, or the one there before. */
export interface TriggerRunSlot {
  created: boolean;
  runId: string;
  status: RunStatus;
  depth: number;
}

/** What to read of one agent's activations for a batch: only what its enabled guards need. */
export interface AgentHistoryQuery {
  agentId: string;
  /** Kinds whose last activation the cooldown needs (empty when the cooldown is off). */
  cooldownKinds: readonly string[];
  /** Read activations since then (the throttle is on). */
  throttleSince?: Date;
  /** Count queued runs up to this many (the queue cap): the count never scans further. */
  queueCap: number;
}

/** One agent's activations as stored when a batch starts (milliseconds since the epoch). */
export interface AgentHistory {
  /** Last activation by kind, for the kinds asked. */
  lastActivationOfKindAt: Map<string, number>;
  /** Activations since `throttleSince` (empty when not asked). */
  recentActivationsAt: number[];
  /** Queued runs, counted up to the cap asked. */
  queuedRuns: number;
}

/** The matcher's reads and writes on the system of record. */
export interface MatcherStore {
  /** Every agent not deleted, with its latest version and enabled flag. */
  loadAgents(): Promise<AgentRecord[]>;
  /** One agent as it is now; null when it does not exist or was deleted. */
  loadAgent(agentId: string): Promise<AgentRecord | null>;
  /** One version of an agent (versions are immutable), with the given enabled flag; null when absent. */
  loadAgentVersion(agentId: string, version: number, enabled: boolean): Promise<AgentRecord | null>;
  /** Every live (not stopped) teammate, with its watch. */
  loadTeammates(): Promise<TeammateRecord[]>;
  /** One teammate, stopped or not (its watch as spawned); null when unknown. */
  loadTeammate(teammateId: string): Promise<TeammateRecord | null>;
  /** The facts of ORDERED_KINDS of each workspace with afterSeq < seq ≤ uptoSeq, by workspace in seq order. */
  changesBetween(ranges: ReadonlyArray<{ workspaceId: string; afterSeq: number; uptoSeq: number }>): Promise<Array<{ workspaceId: string; fact: Fact }>>;
  /** Workspaces whose kill switch is on. */
  pausedWorkspaces(): Promise<Set<string>>;
  /**
   * In one round trip: what the guards need to know of these agents'
   * activations (debounce excepted), and the trigger runs that exist for
   * these (agent, fact) pairs, keyed by `pairKey`.
   */
  batchHistory(
    queries: readonly AgentHistoryQuery[],
    pairs: ReadonlyArray<{ agentId: string; eventId: string }>,
  ): Promise<{ histories: Map<string, AgentHistory>; existing: Map<string, TriggerRunSlot> }>;
  /** The trigger runs that exist for these (agent, fact) pairs, keyed by `pairKey`. */
  existingRuns(pairs: ReadonlyArray<{ agentId: string; eventId: string }>): Promise<Map<string, TriggerRunSlot>>;
  /**
   * In one statement (insertTriggerRuns): the run of each row's (agent, fact) as it exists, else
   * the row's run inserted (a probe's not), its queue cap decided there; in order, null for a
   * probe without a run.
   */
  recordTriggerRuns(rows: readonly TriggerRunRow[]): Promise<Array<TriggerRunSlot | null>>;
  /** Records the guards' skips (a repeat overwrites a pair's row with its new decision). */
  recordSkips(skips: readonly ActivationSkipRecord[]): Promise<void>;
  /** Runs left `queued` (their jobs may be gone with Redis). */
  queuedRuns(): Promise<ActivationJob[]>;
  workspaces(): Promise<Array<{ id: string; slug: string }>>;
  /** Facts of a workspace after a seq, in order. */
  factsAfter(workspace: { id: string; slug: string }, afterSeq: number, limit: number): Promise<Fact[]>;
  /** The last seq of every workspace (used once, when the matcher first starts on an install). */
  lastSeqs(): Promise<Map<string, number>>;
  /** The processed-up-to seq per workspace, and whether this consumer ever saved one. */
  loadCursors(consumer: string): Promise<{ initialized: boolean; cursors: Map<string, number> }>;
  /** Raises each workspace's cursor to at least the given seq; marks the consumer initialized. */
  saveCursors(consumer: string, cursors: ReadonlyMap<string, number>): Promise<void>;
}

/** Where activation jobs go (BullMQ `activations`; job id = run id). */
export interface ActivationSink {
  enqueue(jobs: readonly ActivationJob[]): Promise<void>;
}

/** The key of an (agent, fact) pair in the maps above. */
export function pairKey(agentId: string, eventId: string): string {
  return `${agentId}/${eventId}`;
}
