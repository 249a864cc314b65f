import type { ApprovalDecider } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { ApprovalRecords, RecordedApproval } from '../loop/loop-ports';

interface Row {
  id: string;
  tool_call_id: string;
  status: RecordedApproval['status'];
  decided_by: ApprovalDecider | null;
  note: string | null;
  decided_at: Date | null;
  expires_at: Date;
}

/** The approvals a resumed run reads, and the mark that makes an approved call run at most once. */
export class SqlApprovalRecords implements ApprovalRecords {
  constructor(private readonly sql: SqlRunner) {}

  async ofCalls(run: { runId: string; workspaceId: string }, toolCallIds: readonly string[]): Promise<Map<string, RecordedApproval>> {
    if (toolCallIds.length === 0) return new Map();
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT id::text AS id, tool_call_id, status, decided_by, note, decided_at, expires_at FROM approvals
        WHERE run_id = $1::uuid AND workspace_id = $2::uuid AND tool_call_id = ANY($3::text[])`,
      run.runId,
      run.workspaceId,
      [...toolCallIds],
    );
    return new Map(
      rows.map((row) => [
        row.tool_call_id,
        {
          id: row.id,
          toolCallId: row.tool_call_id,
          status: row.status,
          decidedBy: row.decided_by,
          note: row.note,
          decidedAt: row.decided_at?.toISOString() ?? null,
          expiresAt: row.expires_at.toISOString(),
        },
      ]),
    );
  }

  async startExecution(approvalId: string): Promise<boolean> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `UPDATE approvals SET execution_started_at = clock_timestamp()
        WHERE id = $1::uuid AND status = 'approved' AND execution_started_at IS NULL RETURNING id::text AS id`,
      approvalId,
    );
    return rows.length === 1;
  }
}
