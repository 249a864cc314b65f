import type { ActivationSkipReason, RunStatus } from '@switchyard/contracts';

/** What the matcher made of one fact for one agent, as stored. */
export interface AgentFactState {
  agentId: string;
  name: string;
  /** Its trigger runs for the fact (queued, ended, or `dropped`). */
  runs: Array<{ id: string; status: RunStatus; reason: string | null; agentVersion: number }>;
  /** The guard's skip the matcher recorded, if any. */
  skip: { reason: ActivationSkipReason; agentVersion: number } | null;
  /** The version in force at the fact, with its stored spec and the enabled flag then; null when the agent did not exist yet. */
  inForce: { version: number; spec: unknown; enabled: boolean } | null;
}

/** What the event bridge made of one fact for one teammate, as stored (decision 0059). */
export interface TeammateFactState {
  teammateId: string;
  name: string;
  team: string | null;
  watch: unknown;
  /** Its `teammate.spawned` fact comes after the fact (the bridge's index did not hold it yet). */
  spawnedAfter: boolean;
  stopped: boolean;
  /** Its `teammate_deliveries` row for the fact, if any. */
  delivery: { messageId: string; runId: string | null; deliveredAt: string } | null;
  /** The fact was caused by one of its own turns (a run in its session). */
  ownTurnCaused: boolean;
  /** Ms from its last delivery of the fact's kind (an earlier fact) to this fact's recording; null when none. */
  sinceLastOfKindMs: number | null;
}

/** Reads for "why did my agent (not) run?" (GET /events/{id}/activations). */
export interface ActivationReads {
  /** Every live agent of the workspace (and deleted ones the fact activated), and the matcher's cursor there. */
  activationsOf(workspaceId: string, fact: { id: string; seq: number }): Promise<{ matcherSeq: number; agents: AgentFactState[] }>;
  /** Every teammate of the workspace, stopped ones too, with what the bridge recorded for the fact. */
  teammatesOf(workspaceId: string, fact: { id: string; seq: number; kind: string; causedBy?: { runId: string } | undefined }): Promise<TeammateFactState[]>;
  /** The schedule fire that recorded the fact (its schedule's fire history); null for any other fact or a deleted schedule. */
  fireOf(workspaceId: string, factId: string): Promise<ScheduleFireCause | null>;
}

/** A schedule fire as why-not shows it. */
export interface ScheduleFireCause {
  scheduleId: string;
  name: string;
  slotAt: string;
  late: boolean;
  manual: boolean;
}
