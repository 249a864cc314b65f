import { APPROVAL_FACT_KINDS, type Approval, type ApprovalDecider } from '@switchyard/contracts';
import { approvalFact, newId } from '@switchyard/core';
import { APPROVAL_COLUMNS, approvalFromRow, recordFacts, type ApprovalRow, type SqlPool, type SqlRunner } from '@switchyard/db';
import type { ApprovalParking, ApprovalRequest, Claimed, ParkOutcome, RunRef } from '../ports';
import { SqlRunQueue, type SqlRunQueueOptions } from './sql-run-queue';

/** Who denies every ask of a workspace whose setting `approvals` is `deny`. */
const DENIED_BY_SETTING: ApprovalDecider = { type: 'system', reason: 'approvals_denied' };

/**
 * Parks runs on approvals (decision 0026), each park one transaction: the
 * approvals rows (idempotent per run and tool call), their
 * `approval.requested` facts, and the queue's park of the run (lease
 * cleared, the lane's next runs claimed; its `agent.run.awaiting_approval`
 * fact, written by the runs trigger, lists the pending approvals). With the
 * workspace setting `approvals: "deny"` the rows are denied at once by
 * `system` (`approval.decided` facts too) and the run is not parked.
 */
export class SqlApprovalParking implements ApprovalParking {
  constructor(
    private readonly pool: SqlPool,
    private readonly queue: SqlRunQueueOptions,
  ) {}

  park(run: RunRef, requests: readonly ApprovalRequest[], timeoutMs: number, limit: number): Promise<{ outcome: ParkOutcome; claim: Claimed | null }> {
    return this.pool.transaction(async (tx) => {
      const [workspace] = await tx.$queryRawUnsafe<Array<{ approvals: string }>>(
        `SELECT coalesce((SELECT s.approvals FROM workspace_settings s WHERE s.workspace_id = $1::uuid), 'enabled') AS approvals`,
        run.workspaceId,
      );
      const inserted = await insertPending(tx, run, requests, timeoutMs);
      const facts = inserted.map((approval) => factOf(run, APPROVAL_FACT_KINDS.requested, approval));
      if (workspace?.approvals === 'deny') {
        const denied = await denyPending(tx, run, requests);
        await recordFacts(tx, [...facts, ...denied.map((approval) => factOf(run, APPROVAL_FACT_KINDS.decided, approval))]);
        return { outcome: { type: 'denied' as const, approvals: await approvalsOf(tx, run, requests) }, claim: null };
      }
      await recordFacts(tx, facts);
      // The park comes after the rows: the runs trigger reads the pending approvals into the run's fact.
      const parked = await new SqlRunQueue(tx, this.queue).park(run.id, limit);
      if (!parked.ended) throw new Error('the run is not this runner’s any more (its lease lapsed): not parked');
      return { outcome: { type: 'parked' as const, approvals: await approvalsOf(tx, run, requests) }, claim: parked };
    });
  }
}

/** Inserts the requests as pending approvals; returns those that were new (a repeated park keeps the first rows). */
async function insertPending(tx: SqlRunner, run: RunRef, requests: readonly ApprovalRequest[], timeoutMs: number): Promise<Approval[]> {
  const rows = await tx.$queryRawUnsafe<ApprovalRow[]>(
    `INSERT INTO approvals (id, workspace_id, run_id, agent_id, agent_version, kind, tool_call_id, tool, arguments_preview, truncated, reason, status, requested_at, expires_at)
     SELECT t.id, $2::uuid, $3::uuid, $4::uuid, $5, t.kind, t.call, t.tool, t.preview, t.truncated, t.reason, 'pending',
            clock_timestamp(), clock_timestamp() + $6 * interval '1 millisecond'
       FROM unnest($1::uuid[], $7::text[], $8::text[], $9::jsonb[], $10::text[], $11::boolean[], $12::text[]) AS t(id, kind, call, tool, preview, truncated, reason)
     ON CONFLICT (run_id, tool_call_id) DO NOTHING
     RETURNING ${APPROVAL_COLUMNS}`,
    requests.map(() => newId()),
    run.workspaceId,
    run.id,
    run.agentId,
    run.agentVersion,
    timeoutMs,
    requests.map((request) => request.kind),
    requests.map((request) => request.toolCallId),
    requests.map((request) => (request.tool === null ? null : JSON.stringify(request.tool))),
    requests.map((request) => request.argumentsPreview),
    requests.map((request) => request.truncated),
    requests.map((request) => request.reason),
  );
  return rows.map((row) => approvalFromRow(row, run.workspaceSlug));
}

async function denyPending(tx: SqlRunner, run: RunRef, requests: readonly ApprovalRequest[]): Promise<Approval[]> {
  const rows = await tx.$queryRawUnsafe<ApprovalRow[]>(
    `UPDATE approvals SET status = 'denied', decided_by = $3::jsonb, decided_at = clock_timestamp()
      WHERE run_id = $1::uuid AND tool_call_id = ANY($2::text[]) AND status = 'pending'
      RETURNING ${APPROVAL_COLUMNS}`,
    run.id,
    requests.map((request) => request.toolCallId),
    JSON.stringify(DENIED_BY_SETTING),
  );
  return rows.map((row) => approvalFromRow(row, run.workspaceSlug));
}

async function approvalsOf(tx: SqlRunner, run: RunRef, requests: readonly ApprovalRequest[]): Promise<Approval[]> {
  const rows = await tx.$queryRawUnsafe<ApprovalRow[]>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE run_id = $1::uuid AND tool_call_id = ANY($2::text[]) ORDER BY requested_at, id`,
    run.id,
    requests.map((request) => request.toolCallId),
  );
  return rows.map((row) => approvalFromRow(row, run.workspaceSlug));
}

/** An approval fact of the run's agent, caused by the run (one step deeper, as its run facts are). */
function factOf(run: RunRef, kind: (typeof APPROVAL_FACT_KINDS)[keyof typeof APPROVAL_FACT_KINDS], approval: Approval) {
  const author = { workspaceId: run.workspaceId, workspaceSlug: run.workspaceSlug, actor: { type: 'agent' as const, id: run.agentId } };
  return { fact: approvalFact(author, kind, approval, { runId: run.id, agentId: run.agentId, depth: run.depth + 1 }), correlationId: run.id };
}
