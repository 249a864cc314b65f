import type { BackfillBatch, BackfillRequest } from '@switchyard/contracts';
import type { SqlPool } from '@switchyard/db';
import { BackfillBatches, planBackfill, type BackfillPlan, type BackfillTarget, type Wake } from '@switchyard/runs';
import type { BackfillStore } from '../backfill-ports';

/** BackfillStore on PostgreSQL: libs/runs' batches and plan. */
export class SqlBackfillStore implements BackfillStore {
  private readonly batches: BackfillBatches;

  constructor(private readonly sql: SqlPool) {
    this.batches = new BackfillBatches(sql, sql);
  }

  plan(target: BackfillTarget, request: BackfillRequest): Promise<BackfillPlan> {
    return planBackfill(this.sql, target, request);
  }

  create(target: BackfillTarget, batch: { id: string; agentVersion: number; createdBy: string; request: BackfillRequest }): Promise<BackfillPlan> {
    return this.sql.transaction(async (tx) => {
      const plan = await planBackfill(tx, target, batch.request);
      await this.batches.create(tx, { ...batch, workspaceId: target.workspaceId, agentId: target.agentId, seqs: plan.seqs });
      return plan;
    });
  }

  feed(): Promise<Wake[]> {
    return this.batches.feed();
  }

  get(workspaceId: string, agentId: string, batchId: string): Promise<BackfillBatch | null> {
    return this.batches.get(workspaceId, agentId, batchId);
  }

  stop(workspaceId: string, agentId: string, batchId: string): Promise<boolean> {
    return this.batches.stop(workspaceId, agentId, batchId);
  }

  liveRuns(workspaceId: string, batchId: string): Promise<string[]> {
    return this.batches.liveRuns(workspaceId, batchId);
  }
}
