import type { BackfillBatch, BackfillRequest } from '@switchyard/contracts';
import type { BackfillPlan, BackfillTarget, Wake } from '@switchyard/runs';

/** The backfill batches as the gateway uses them (libs/runs BackfillBatches and planBackfill). */
export interface BackfillStore {
  /** The facts a backfill would activate the agent on, and their estimated cost. */
  plan(target: BackfillTarget, request: BackfillRequest): Promise<BackfillPlan>;
  /** Records a batch, its facts fixed (planned again in its transaction, so the stored seqs are exactly what it counts); returns the plan stored. */
  create(target: BackfillTarget, batch: { id: string; agentVersion: number; createdBy: string; request: BackfillRequest }): Promise<BackfillPlan>;
  /** Starts the batches' next runs now (the matcher's feeder does too); the new runs, to wake. */
  feed(): Promise<Wake[]>;
  /** A batch of the agent (deleted or not); null when it has none of that id. */
  get(workspaceId: string, agentId: string, batchId: string): Promise<BackfillBatch | null>;
  /** Stops feeding the batch; false when the agent has no such batch. */
  stop(workspaceId: string, agentId: string, batchId: string): Promise<boolean>;
  /** The batch's runs that have not ended. */
  liveRuns(workspaceId: string, batchId: string): Promise<string[]>;
}
