import { FACT_COLUMNS, type SqlRunner } from '@switchyard/db';
import { runContextFromRow } from '@switchyard/runs';
import type { RunContext, RunContextStore } from '../ports';

/**
 * Columns, over a run aliased `r`, of everything a RunContext holds. The fact
 * comes as one JSON column (`row_to_json`), so its column names cannot clash
 * with the run's.
 */
export const RUN_CONTEXT_COLUMNS = `r.origin, r.session_id::text AS session_id,
  (SELECT max(seq) FROM transcript_entries t WHERE t.session_id = r.session_id) AS transcript_seq,
  EXISTS (SELECT 1 FROM transcript_entries t WHERE t.run_id = r.id) AS continued,
  (SELECT row_to_json(e) FROM (SELECT ${FACT_COLUMNS} FROM platform_events
                                WHERE id = r.event_id AND workspace_id = r.workspace_id) e) AS fact_row`;

/** Reads a run's origin, session, activating fact and where its session's transcript stands (and whether the run has entries), in one query. */
export class SqlRunContextStore implements RunContextStore {
  constructor(private readonly sql: SqlRunner) {}

  async context(run: { id: string; workspaceId: string; workspaceSlug: string }): Promise<RunContext | null> {
    const [row] = await this.sql.$queryRawUnsafe<unknown[]>(
      `SELECT ${RUN_CONTEXT_COLUMNS} FROM runs r WHERE r.id = $1::uuid AND r.workspace_id = $2::uuid`,
      run.id,
      run.workspaceId,
    );
    return row ? runContextFromRow(row, run.workspaceSlug) : null;
  }
}
