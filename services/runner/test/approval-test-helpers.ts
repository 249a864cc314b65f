import { APPROVAL_COLUMNS, type ApprovalRow, type SqlPool } from '@switchyard/db';
import { waitFor, type apiClient } from '@switchyard/testing';

/**
 * Why this exists: every test here decides through the gateway's real route
 * (`POST /v1/workspaces/{ws}/approvals/{id}/decision`, decision 0025): this
 * says it once. Returns the HTTP status (200 decided, 409 decided before).
 */
export async function decideApproval(
  api: ReturnType<typeof apiClient>,
  ws: string,
  approvalId: string,
  decision: 'approve' | 'deny',
  note?: string,
): Promise<number> {
  const response = await api('POST', `/v1/workspaces/${ws}/approvals/${approvalId}/decision`, { decision, ...(note === undefined ? {} : { note }) });
  return response.status;
}

/** A run's approvals as stored, oldest first. */
export async function approvalsOfRun(pool: SqlPool, runId: string): Promise<ApprovalRow[]> {
  return pool.$queryRawUnsafe<ApprovalRow[]>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE run_id = $1::uuid ORDER BY requested_at, id`, runId);
}

/** Waits until the run is parked or ended; returns its status and its pending approvals. */
export async function nextStop(pool: SqlPool, runId: string, timeoutMs = 60_000): Promise<{ status: string; reason: string | null; pending: ApprovalRow[] }> {
  return waitFor(
    async () => {
      const [run] = await pool.$queryRawUnsafe<Array<{ status: string; reason: string | null }>>(`SELECT status::text AS status, reason FROM runs WHERE id = $1::uuid`, runId);
      if (!run || run.status === 'queued' || run.status === 'running') return undefined;
      const pending = (await approvalsOfRun(pool, runId)).filter((approval) => approval.status === 'pending');
      return { status: run.status, reason: run.reason, pending };
    },
    { timeoutMs, intervalMs: 25, what: `run ${runId} parked or ended` },
  );
}
