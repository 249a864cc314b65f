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

/** Reads for "why did my agent (not) run?" (GET /events/{id}/activations). */
export interface ActivationReads {
  /** Every live agent of the workspace (and deleted ones the fact activated), and the matcher's cursor there. */
  activationsOf(workspaceId: string, fact: { id: string; seq: number }): Promise<{ matcherSeq: number; agents: AgentFactState[] }>;
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
