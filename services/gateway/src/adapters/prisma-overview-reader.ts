import type { Approval, RunStatus } from '@switchyard/contracts';
import { APPROVAL_COLUMNS, approvalFromRow, type ApprovalRow, type PrismaClient } from '@switchyard/db';
import type { WorkspaceOverviewReader } from '../notification-ports';

/** The short reads of `/switchyard status|runs|approvals`, scoped by workspace id. */
export class PrismaOverviewReader implements WorkspaceOverviewReader {
  constructor(private readonly prisma: PrismaClient) {}

  async runCounts(workspaceId: string): Promise<Partial<Record<RunStatus, number>>> {
    const rows = await this.prisma.$queryRaw<Array<{ status: RunStatus; n: bigint }>>`
      SELECT status::text AS status, count(*) AS n FROM runs
       WHERE workspace_id = ${workspaceId}::uuid AND status IN ('queued', 'running', 'awaiting_approval', 'awaiting_event') GROUP BY status`;
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  async recentRuns(workspaceId: string, agentName: string | null, limit: number) {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; agent_name: string; status: RunStatus; reason: string | null; queued_at: Date }>>(
      `SELECT r.id::text AS id, a.name AS agent_name, r.status::text AS status, r.reason, r.queued_at
         FROM runs r JOIN agents a ON a.id = r.agent_id
        WHERE r.workspace_id = $1::uuid AND ($2::text IS NULL OR a.name = $2)
        ORDER BY r.queued_at DESC, r.id DESC LIMIT $3`,
      workspaceId,
      agentName,
      limit,
    );
    return rows.map((row) => ({ id: row.id, agentName: row.agent_name, status: row.status, reason: row.reason, queuedAt: row.queued_at }));
  }

  async pendingApprovals(workspaceId: string, limit: number): Promise<Approval[]> {
    const rows = await this.prisma.$queryRawUnsafe<Array<ApprovalRow & { slug: string }>>(
      `SELECT ${APPROVAL_COLUMNS}, (SELECT slug FROM workspaces WHERE id = $1::uuid) AS slug FROM approvals
        WHERE workspace_id = $1::uuid AND status = 'pending' ORDER BY requested_at, id LIMIT $2`,
      workspaceId,
      limit,
    );
    return rows.map((row) => approvalFromRow(row, row.slug));
  }
}
