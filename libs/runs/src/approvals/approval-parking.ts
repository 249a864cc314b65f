import { APPROVAL_FACT_KINDS, ApprovalsParkRowSchema, type Approval, type ApprovalDecider } from '@switchyard/contracts';
import { approvalFact, newId } from '@switchyard/core';
import { APPROVAL_COLUMNS, approvalFromRow, outboxParams, recordFacts, type ApprovalRow, type SqlPool, type SqlRunner } from '@switchyard/db';
import type { ApprovalParking, ApprovalRequest, Claimed, ParkOutcome, RunRef } from '../ports';
import { claimedFromRow, parseRow } from '../queue-rows';
import type { SqlRunQueueOptions } from '../sql-run-queue';

/** Who denies every ask of a workspace whose setting `approvals` is `deny`. */
const DENIED_BY_SETTING: ApprovalDecider = { type: 'system', reason: 'approvals_denied' };

/** `approvals_park`: the facts as its first eleven parameters (outboxParams), then the run, its owner, lease, claim limit and the rows. */
const PARK_SQL = `SELECT approvals_park($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::text[], $10::timestamptz[], $11::text[],
  $12::uuid, $13, $14, $15, $16::jsonb) AS r`;

/**
 * Parks runs on approvals (decision 0026) in one statement (SQL
 * `approvals_park`): the approvals rows (idempotent per run and tool call),
 * the `approval.requested` facts of the new ones, and the queue's park of
 * the run (lease cleared, the lane's next runs claimed; its
 * `agent.run.awaiting_approval` fact, written by the runs trigger, lists the
 * pending approvals). The rows and their facts are built here, stamped with
 * this process's clock, so that the statement needs nothing back first. With
 * the workspace setting `approvals: "deny"` the statement writes nothing; the
 * rows are then written denied by `system` (`approval.decided` facts too)
 * and the run is not parked.
 */
export class SqlApprovalParking implements ApprovalParking {
  constructor(
    private readonly pool: SqlPool,
    private readonly queue: SqlRunQueueOptions,
  ) {}

  async park(run: RunRef, requests: readonly ApprovalRequest[], timeoutMs: number, limit: number): Promise<{ outcome: ParkOutcome; claim: Claimed | null }> {
    const rows = pendingRows(run, requests, timeoutMs);
    const facts = rows.map((row) => factOf(run, APPROVAL_FACT_KINDS.requested, approvalFromRow(row, run.workspaceSlug)));
    const [result] = await this.pool.$queryRawUnsafe<Array<{ r: unknown }>>(
      PARK_SQL,
      ...outboxParams(facts),
      run.id,
      this.queue.owner,
      this.queue.leaseMs,
      Math.max(0, limit),
      JSON.stringify(rows),
    );
    const parked = parseRow(ApprovalsParkRowSchema, result?.r, 'approvals_park');
    if ('deny' in parked) {
      await this.pool.transaction((tx) => denyAll(tx, run, rows));
      return { outcome: { type: 'denied' }, claim: null };
    }
    return { outcome: { type: 'parked' }, claim: claimedFromRow(parked) };
  }
}

/** The requests as pending approval rows, requested now. */
function pendingRows(run: RunRef, requests: readonly ApprovalRequest[], timeoutMs: number): ApprovalRow[] {
  const requestedAt = new Date();
  const expiresAt = new Date(requestedAt.getTime() + timeoutMs);
  return requests.map((request) => ({
    id: newId(),
    workspace_id: run.workspaceId,
    run_id: run.id,
    agent_id: run.agentId,
    agent_version: run.agentVersion,
    kind: request.kind,
    tool_call_id: request.toolCallId,
    tool: request.tool,
    arguments_preview: request.argumentsPreview,
    truncated: request.truncated,
    reason: request.reason,
    status: 'pending',
    requested_at: requestedAt,
    expires_at: expiresAt,
    decided_by: null,
    note: null,
    decided_at: null,
    execution_started_at: null,
  }));
}

/** A workspace that denies every ask: the rows written denied at once, with both their facts (a repeated ask keeps the first rows). */
async function denyAll(tx: SqlRunner, run: RunRef, rows: readonly ApprovalRow[]): Promise<void> {
  const denied = await tx.$queryRawUnsafe<ApprovalRow[]>(
    `INSERT INTO approvals (id, workspace_id, run_id, agent_id, agent_version, kind, tool_call_id, tool, arguments_preview, truncated, reason, status, requested_at, expires_at, decided_by, decided_at)
     SELECT t.id, t.workspace_id, t.run_id, t.agent_id, t.agent_version, t.kind, t.tool_call_id, t.tool, t.arguments_preview, t.truncated, t.reason, 'denied',
            t.requested_at, t.expires_at, $2::jsonb, clock_timestamp()
       FROM jsonb_to_recordset($1::jsonb) AS t(id uuid, workspace_id uuid, run_id uuid, agent_id uuid, agent_version int, kind text, tool_call_id text, tool jsonb,
                                               arguments_preview text, truncated boolean, reason text, requested_at timestamptz, expires_at timestamptz)
     ON CONFLICT (run_id, tool_call_id) DO NOTHING
     RETURNING ${APPROVAL_COLUMNS}`,
    JSON.stringify(rows),
    JSON.stringify(DENIED_BY_SETTING),
  );
  const approvals = denied.map((row) => approvalFromRow(row, run.workspaceSlug));
  const requested = approvals.map((approval) => ({ ...approval, status: 'pending' as const, decidedBy: null, decidedAt: null }));
  await recordFacts(tx, [
    ...requested.map((approval) => factOf(run, APPROVAL_FACT_KINDS.requested, approval)),
    ...approvals.map((approval) => factOf(run, APPROVAL_FACT_KINDS.decided, approval)),
  ]);
}

/** An approval fact of the run's agent, caused by the run (one step deeper, as its run facts are). */
function factOf(run: RunRef, kind: (typeof APPROVAL_FACT_KINDS)[keyof typeof APPROVAL_FACT_KINDS], approval: Approval) {
  const author = { workspaceId: run.workspaceId, workspaceSlug: run.workspaceSlug, actor: { type: 'agent' as const, id: run.agentId } };
  return { fact: approvalFact(author, kind, approval, { runId: run.id, agentId: run.agentId, depth: run.depth + 1 }), correlationId: run.id };
}
