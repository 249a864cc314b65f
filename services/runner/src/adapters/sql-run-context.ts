import { RunOriginSchema } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow, type SqlRunner } from '@switchyard/db';
import type { RunContext, RunContextStore } from '../loop/loop-ports';

/** Reads a run's origin, session, activating fact and where its session's transcript stands, in one query. */
export class SqlRunContextStore implements RunContextStore {
  constructor(private readonly sql: SqlRunner) {}

  async context(run: { id: string; workspaceId: string; workspaceSlug: string }): Promise<RunContext | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<FactRow & { origin: unknown; session_id: string; has_fact: boolean; transcript_seq: number | null }>>(
      `SELECT r.origin, r.session_id::text AS session_id, e.id IS NOT NULL AS has_fact, e.*,
              (SELECT max(seq) FROM transcript_entries t WHERE t.session_id = r.session_id) AS transcript_seq
         FROM runs r
         LEFT JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM platform_events
                             WHERE id = r.event_id AND workspace_id = r.workspace_id) e ON true
        WHERE r.id = $1::uuid AND r.workspace_id = $2::uuid`,
      run.id,
      run.workspaceId,
    );
    if (!row) return null;
    return {
      origin: RunOriginSchema.parse(row.origin),
      sessionId: row.session_id,
      fact: row.has_fact ? factFromRow(row, run.workspaceSlug) : null,
      transcriptSeq: Number(row.transcript_seq ?? 0),
    };
  }
}
