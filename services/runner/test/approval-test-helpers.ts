import { randomUUID } from 'node:crypto';
import { APPROVAL_FACT_KINDS, type ActivationJob } from '@switchyard/contracts';
import { approvalFact } from '@switchyard/core';
import { APPROVAL_COLUMNS, approvalFromRow, recordFacts, SqlPool, type ApprovalRow } from '@switchyard/db';
import { createActivationQueue } from '@switchyard/redis';
import { waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * Why this exists: the gateway's decision route (`POST …/approvals/{id}/decision`)
 * is built beside this branch. Until it is merged, these tests decide
 * approvals exactly as its command does (decision 0025, DECIDE): in one
 * transaction the conditional update (first write wins), the
 * `approval.decided` fact and resumeIfReady (the run parked, no approval of
 * it pending, the workspace not paused → run_queue_resume); after the commit,
 * when resumed, an `activations` job for the run (job id unique per resume).
 */
export async function decideApproval(
  platform: TestPlatform,
  approvalId: string,
  decision: 'approve' | 'deny',
  note?: string,
): Promise<{ decided: boolean; resumed: boolean }> {
  const pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
  try {
    const result = await pool.transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<Array<ApprovalRow & { slug: string; depth: number }>>(
        `WITH d AS (UPDATE approvals SET status = $2, decided_by = $3::jsonb, note = $4, decided_at = clock_timestamp()
                     WHERE id = $1::uuid AND status = 'pending' RETURNING *)
         SELECT ${APPROVAL_COLUMNS}, (SELECT w.slug FROM workspaces w WHERE w.id = d.workspace_id) AS slug,
                (SELECT r.depth FROM runs r WHERE r.id = d.run_id) AS depth
           FROM d`,
        approvalId,
        decision === 'approve' ? 'approved' : 'denied',
        JSON.stringify({ type: 'member', userId: randomUUID() }),
        note ?? null,
      );
      const row = rows[0];
      if (!row) return { decided: false, resumed: false, job: null };
      const approval = approvalFromRow(row, row.slug);
      const author = { workspaceId: row.workspace_id, workspaceSlug: row.slug, actor: { type: 'member' as const, id: 'test-decider' } };
      await recordFacts(tx, [{ fact: approvalFact(author, APPROVAL_FACT_KINDS.decided, approval, { runId: row.run_id, agentId: row.agent_id, depth: Number(row.depth) + 1 }), correlationId: row.run_id }]);
      const [ready] = await tx.$queryRawUnsafe<Array<{ resumed: boolean }>>(
        `SELECT CASE WHEN r.status = 'awaiting_approval'
                      AND NOT EXISTS (SELECT 1 FROM approvals p WHERE p.run_id = r.id AND p.status = 'pending')
                      AND NOT coalesce((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false)
                 THEN run_queue_resume(r.id) ELSE false END AS resumed
           FROM runs r WHERE r.id = $1::uuid`,
        row.run_id,
      );
      const job: ActivationJob = { schemaVersion: 1, runId: row.run_id, workspaceId: row.workspace_id, agentId: row.agent_id };
      return { decided: true, resumed: ready?.resumed === true, job };
    });
    if (result.resumed && result.job) {
      const queue = createActivationQueue(platform.redis.redis.duplicate({ maxRetriesPerRequest: null }), platform.redis.prefix);
      try {
        await queue.add('run', result.job, { jobId: `${result.job.runId}:r:${approvalId}` });
      } finally {
        await queue.close();
        await queue.disconnect();
      }
    }
    return { decided: result.decided, resumed: result.resumed };
  } finally {
    await pool.$disconnect();
  }
}

/** A run's approvals as stored, oldest first. */
export async function approvalsOfRun(pool: SqlPool, runId: string): Promise<ApprovalRow[]> {
  return pool.$queryRawUnsafe<ApprovalRow[]>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE run_id = $1::uuid ORDER BY requested_at, id`, runId);
}

/** Waits until the run is parked or ended; returns its status and its pending approvals. */
export async function nextStop(pool: SqlPool, runId: string, timeoutMs = 60_000): Promise<{ status: string; pending: ApprovalRow[] }> {
  return waitFor(
    async () => {
      const [run] = await pool.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text AS status FROM runs WHERE id = $1::uuid`, runId);
      if (!run || run.status === 'queued' || run.status === 'running') return undefined;
      const pending = (await approvalsOfRun(pool, runId)).filter((approval) => approval.status === 'pending');
      return { status: run.status, pending };
    },
    { timeoutMs, intervalMs: 25, what: `run ${runId} parked or ended` },
  );
}
