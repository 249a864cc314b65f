import type { Fact, RunOrigin, RunStatus } from '@switchyard/contracts';

/**
 * The run queue port as the fake and the conformance suite see it: the
 * runner's `RunQueue` (services/runner/src/ports.ts), restated here because a
 * lib does not depend on a service. The runner's tests pass the fake as a
 * `RunQueue`, so the compiler keeps the two shapes the same.
 */
export interface QueueRunRef {
  id: string;
  workspaceId: string;
  workspaceSlug: string;
  agentId: string;
  agentVersion: number;
  status: RunStatus;
  eventId: string | null;
  depth: number;
}

/** A run a claim started, with what executing it needs. */
export interface QueueStartedRun extends QueueRunRef {
  context: { origin: RunOrigin; sessionId: string; fact: Fact | null; transcriptSeq: number; continued: boolean };
  stop: 'stopped' | 'agents_paused' | null;
}

/** What a claim did. */
export interface QueueClaimed {
  started: QueueStartedRun[];
  lost: QueueRunRef[];
}

/** What an ending or a parking did. */
export interface QueueEnded extends QueueClaimed {
  ended: boolean;
}

/** An ending as the queue writes it. */
export interface QueueEnding {
  status: 'completed' | 'failed' | 'cancelled';
  reason: string | null;
  outcome: null | { summary: string; turns: number; toolCalls: number; tokensIn: number; tokensOut: number; costUsd: number };
  error: { code: string; message: string } | null;
}

/** The run queue port (see the note above). */
export interface ConformingRunQueue {
  claim(runId: string, limit: number): Promise<QueueClaimed>;
  claimLane(lane: string, limit: number): Promise<QueueClaimed>;
  end(runId: string, ending: QueueEnding, limit: number): Promise<QueueEnded>;
  park(runId: string, limit: number): Promise<QueueEnded>;
  resume(runId: string): Promise<boolean>;
  renew(runIds: readonly string[]): Promise<Set<string>>;
  lanesToSweep(queuedOlderThanMs: number): Promise<string[]>;
}
