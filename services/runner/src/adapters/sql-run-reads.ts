import { RUN_CANCEL_REASONS } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { RunReads, StopReason, StoredTry } from '../ports';
import { SqlStepBatch } from './sql-step-batch';

/** The runner's reads of the run ledger besides the queue: specs, tries and stop flags. */
export class SqlRunReads implements RunReads {
  constructor(
    private readonly sql: SqlRunner,
    /** Where stop reads go: shared with SqlTranscriptStore, a boundary's read and flush are one statement. */
    private readonly batch: SqlStepBatch = new SqlStepBatch(sql),
  ) {}

  async specOf(agentId: string, version: number): Promise<unknown> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ spec: unknown }>>(
      'SELECT spec FROM agent_versions WHERE agent_id = $1::uuid AND version = $2',
      agentId,
      version,
    );
    return row?.spec ?? null;
  }

  async tryOf(runId: string): Promise<StoredTry | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ spec: unknown; fact: unknown; created_by: string; created_at: Date }>>(
      'SELECT spec, fact, created_by::text AS created_by, created_at FROM agent_tries WHERE run_id = $1::uuid',
      runId,
    );
    return row ? { spec: row.spec, fact: row.fact ?? null, createdBy: row.created_by, createdAt: new Date(row.created_at) } : null;
  }

  async stopReason(runId: string): Promise<StopReason | null> {
    const flags = await this.batch.stopFlags(runId);
    if (flags?.stopRequested) return RUN_CANCEL_REASONS.stopped;
    if (flags?.paused) return RUN_CANCEL_REASONS.agentsPaused;
    return null;
  }
}
