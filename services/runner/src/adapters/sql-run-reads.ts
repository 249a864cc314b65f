import { RUN_CANCEL_REASONS } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { RunReads, StopReason, StoredTry } from '../ports';

/** The runner's reads of the run ledger besides the queue: specs, tries and stop flags. */
export class SqlRunReads implements RunReads {
  constructor(private readonly sql: SqlRunner) {}

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
    const [row] = await this.sql.$queryRawUnsafe<Array<{ stop_requested: boolean; paused: boolean }>>(
      `SELECT r.stop_requested, coalesce(s.agents_paused, false) AS paused
         FROM runs r LEFT JOIN workspace_settings s ON s.workspace_id = r.workspace_id
        WHERE r.id = $1::uuid`,
      runId,
    );
    if (row?.stop_requested) return RUN_CANCEL_REASONS.stopped;
    if (row?.paused) return RUN_CANCEL_REASONS.agentsPaused;
    return null;
  }
}
