import {
  APPROVAL_FACT_KINDS,
  type Actor,
  type Approval,
  type ApprovalDecider,
  type ApprovalStatus,
  type CausedBy,
  RUN_CANCEL_REASONS,
} from '@switchyard/contracts';
import { approvalFact, type ApprovalFactKind } from '@switchyard/core';
import { APPROVAL_COLUMNS, approvalFromRow, recordFacts, type ApprovalRow, type SqlRunner, type SqlTransactions } from '@switchyard/db';

/** A workspace as the approvals' queries scope them: its id, and the slug its approvals and facts show. */
export interface ApprovalWorkspace {
  id: string;
  slug: string;
}

/** A page of approvals, oldest first. */
export interface ApprovalPage {
  approvals: Approval[];
  /** The last approval's id when the page is full: the next page's `after`. */
  nextCursor: string | null;
}

/** Which approvals a list holds. */
export interface ApprovalListFilter {
  status?: ApprovalStatus;
  runId?: string;
  agentId?: string;
  /** An approval id: the page starts after it (requested time, then id). */
  after?: string;
  limit: number;
}

/** A run a change of its approvals moved back into its lane's line: its job wakes a runner. */
export interface ResumedRun {
  runId: string;
  workspaceId: string;
  agentId: string;
}

/** Outcome of a decision; the refusals are expected, so they are values. */
export type DecideResult =
  | { ok: true; approval: Approval; resumed: ResumedRun | null }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'already_decided'; approval: Approval };

/** A decision as the approval records it. */
export interface ApprovalDecisionInput {
  status: 'approved' | 'denied';
  decidedBy: ApprovalDecider;
  note: string | null;
  /** The member's actor on the `approval.decided` fact. */
  actor: Actor;
  correlationId: string;
}

/** An approval the platform closed (expiry, a stopped run), with the run it may have resumed. */
export interface ClosedApproval {
  approval: Approval;
  resumed: ResumedRun | null;
}

/** The platform's own actor on the facts of the changes it makes by itself. */
const SYSTEM_ACTOR: Actor = { type: 'system', id: 'switchyard' };
const RUN_STOPPED: ApprovalDecider = { type: 'system', reason: 'run_stopped' };
const EXPIRED: ApprovalDecider = { type: 'system', reason: 'expired' };

/** A row of APPROVAL_COLUMNS with its workspace's slug and its run's causation. */
type ApprovalRunRow = ApprovalRow & { slug: string; run_depth: number | null };

/** The columns every statement returns: the approval, its workspace's slug, its run's depth. */
const WITH_CONTEXT = `a.*, w.slug, r.depth AS run_depth FROM a JOIN workspaces w ON w.id = a.workspace_id::uuid LEFT JOIN runs r ON r.id = a.run_id::uuid`;

/** Takes the lock of the run's lane (run_lane_lock, as the run queue's functions do, decision 0009): every change of a parked run's approvals and status is serialized with the runner's. */
const LOCK_LANE_SQL = `SELECT run_lane_lock(lane)::text AS locked FROM runs WHERE id = $1::uuid`;

/** An approval of the workspace, its run's lane locked in the same statement (an approval never changes runs). */
const TARGET_AND_LOCK_SQL = `
  SELECT a.run_id::text AS run_id, run_lane_lock(r.lane)::text AS locked
  FROM approvals a JOIN runs r ON r.id = a.run_id WHERE a.id = $1::uuid AND a.workspace_id = $2::uuid`;

/** Statuses after which a run does nothing more. */
const TERMINAL_STATUSES = `('completed', 'failed', 'cancelled', 'dropped')`;

/**
 * A parked run back in its lane's line when nothing holds it any more: it is
 * still `awaiting_approval`, none of its approvals is pending, and its
 * workspace's kill switch is off (a paused workspace resumes it once unpaused).
 */
const RESUME_IF_READY_SQL = `
  SELECT run_queue_resume(r.id) AS resumed, r.workspace_id::text AS workspace_id, r.agent_id::text AS agent_id FROM runs r
  WHERE r.id = $1::uuid AND r.status = 'awaiting_approval'
    AND NOT EXISTS (SELECT 1 FROM approvals p WHERE p.run_id = r.id AND p.status = 'pending')
    AND NOT COALESCE((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false)`;

/**
 * The approvals of the system of record (decision 0025), shared by the
 * gateway (list, get, decide, the stop of a run) and the approvals service
 * (expiry, resumes after the kill switch). Every change is a conditional
 * update under its run's lane lock, in one transaction with its
 * `approval.*` fact (the outbox) and the resume of the run it frees: first
 * write wins, and a run resumes exactly once, when its last pending approval
 * is closed. Every query of a caller is scoped by its workspace id.
 */
export class ApprovalStore {
  constructor(
    private readonly sql: SqlRunner,
    private readonly db: SqlTransactions,
  ) {}

  /** Approvals of the workspace, oldest first (requested time, then id). */
  async list(workspace: ApprovalWorkspace, filter: ApprovalListFilter): Promise<ApprovalPage> {
    const rows = await this.sql.$queryRawUnsafe<ApprovalRow[]>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals
       WHERE workspace_id = $1::uuid
         AND ($2::text IS NULL OR status = $2::text)
         AND ($3::uuid IS NULL OR run_id = $3::uuid)
         AND ($4::uuid IS NULL OR agent_id = $4::uuid)
         AND ($5::uuid IS NULL OR (requested_at, id) > (SELECT c.requested_at, c.id FROM approvals c WHERE c.id = $5::uuid AND c.workspace_id = $1::uuid))
       ORDER BY requested_at, id
       LIMIT $6::int`,
      workspace.id,
      filter.status ?? null,
      filter.runId ?? null,
      filter.agentId ?? null,
      filter.after ?? null,
      filter.limit,
    );
    const approvals = rows.map((row) => approvalFromRow(row, workspace.slug));
    return { approvals, nextCursor: approvals.length === filter.limit ? approvals.at(-1)!.id : null };
  }

  /** One approval of the workspace; null when unknown or another workspace's. */
  async get(workspace: ApprovalWorkspace, id: string): Promise<Approval | null> {
    const [row] = await this.sql.$queryRawUnsafe<ApprovalRow[]>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1::uuid AND workspace_id = $2::uuid`,
      id,
      workspace.id,
    );
    return row ? approvalFromRow(row, workspace.slug) : null;
  }

  /**
   * A person's decision: recorded only while the approval is pending (first
   * write wins), with `approval.decided`, and the run resumed when it was its
   * last pending approval. An approval whose run was stopped meanwhile is
   * closed `denied` by the platform instead, and the decision is refused as
   * already decided.
   */
  async decide(workspace: ApprovalWorkspace, id: string, decision: ApprovalDecisionInput): Promise<DecideResult> {
    // Four statements on the way of a decision that stands: each round trip is on the way to the resumed call.
    return this.db.transaction(async (tx): Promise<DecideResult> => {
      const [target] = await tx.$queryRawUnsafe<Array<{ run_id: string }>>(TARGET_AND_LOCK_SQL, id, workspace.id);
      if (!target) return { ok: false, reason: 'not_found' };
      // A statement after the lock: a stop that committed while this waited is seen, and the decision is not recorded.
      const [row] = await tx.$queryRawUnsafe<ApprovalRunRow[]>(
        `WITH a AS (
           UPDATE approvals SET status = $3::text, decided_by = $4::jsonb, note = $5::text, decided_at = clock_timestamp()
           WHERE id = $1::uuid AND workspace_id = $2::uuid AND status = 'pending'
             AND EXISTS (SELECT 1 FROM runs live WHERE live.id = approvals.run_id AND NOT live.stop_requested AND live.status NOT IN ${TERMINAL_STATUSES})
           RETURNING ${APPROVAL_COLUMNS})
         SELECT ${WITH_CONTEXT}`,
        id,
        workspace.id,
        decision.status,
        JSON.stringify(decision.decidedBy),
        decision.note,
      );
      if (!row) return refuseDecision(tx, workspace, id, target.run_id, decision.correlationId);
      const [approval] = await recordChanges(tx, [row], APPROVAL_FACT_KINDS.decided, decision.actor, decision.correlationId);
      return { ok: true, approval: approval!, resumed: await resumeIfReady(tx, row.run_id) };
    });
  }

  /**
   * Expires a pending approval whose time is up (the database's clock
   * decides): `expired`, decided by the platform, with `approval.expired`,
   * and the run resumed when it was its last pending approval. Null when it
   * was decided first, is not due yet, or does not exist.
   */
  async expire(id: string, correlationId: string): Promise<ClosedApproval | null> {
    return this.db.transaction(async (tx) => {
      const [target] = await tx.$queryRawUnsafe<Array<{ run_id: string }>>(`SELECT run_id::text AS run_id FROM approvals WHERE id = $1::uuid`, id);
      if (!target) return null;
      await tx.$queryRawUnsafe(LOCK_LANE_SQL, target.run_id);
      const [row] = await tx.$queryRawUnsafe<ApprovalRunRow[]>(
        `WITH a AS (
           UPDATE approvals SET status = 'expired', decided_by = $2::jsonb, decided_at = clock_timestamp()
           WHERE id = $1::uuid AND status = 'pending' AND expires_at <= clock_timestamp()
           RETURNING ${APPROVAL_COLUMNS})
         SELECT ${WITH_CONTEXT}`,
        id,
        JSON.stringify(EXPIRED),
      );
      if (!row) return null;
      const [approval] = await recordChanges(tx, [row], APPROVAL_FACT_KINDS.expired, SYSTEM_ACTOR, correlationId);
      return { approval: approval!, resumed: await resumeIfReady(tx, row.run_id) };
    });
  }

  /** Ids of pending approvals past their expiry, oldest first: what the sweep expires when their delayed job was lost. */
  async dueForExpiry(limit: number): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id::text AS id FROM approvals WHERE status = 'pending' AND expires_at <= clock_timestamp() ORDER BY expires_at LIMIT $1::int`,
      limit,
    );
    return rows.map((row) => row.id);
  }

  /**
   * Resumes the parked runs nothing holds any more (no pending approval, the
   * kill switch off), of one workspace or of all: after a workspace is
   * unpaused, and by the sweep. Returns the runs resumed.
   */
  async resumeReady(workspaceId: string | null, limit: number): Promise<ResumedRun[]> {
    const candidates = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT r.id::text AS id FROM runs r
       WHERE r.status = 'awaiting_approval' AND ($1::uuid IS NULL OR r.workspace_id = $1::uuid)
         AND NOT EXISTS (SELECT 1 FROM approvals p WHERE p.run_id = r.id AND p.status = 'pending')
         AND NOT COALESCE((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false)
       ORDER BY r.queued_at, r.id LIMIT $2::int`,
      workspaceId,
      limit,
    );
    const resumed: ResumedRun[] = [];
    for (const { id } of candidates) {
      const run = await this.db.transaction(async (tx) => {
        await tx.$queryRawUnsafe(LOCK_LANE_SQL, id);
        return resumeIfReady(tx, id);
      });
      if (run) resumed.push(run);
    }
    return resumed;
  }

  /**
   * Pending approvals of runs that have ended or were asked to stop, closed
   * `denied` by the platform (run_stopped): what a stop that raced a park
   * left behind. Returns how many were closed.
   */
  async closeOrphaned(limit: number): Promise<number> {
    const runs = await this.sql.$queryRawUnsafe<Array<{ run_id: string }>>(
      `SELECT DISTINCT a.run_id::text AS run_id FROM approvals a JOIN runs r ON r.id = a.run_id
       WHERE a.status = 'pending' AND (r.stop_requested OR r.status IN ${TERMINAL_STATUSES})
       LIMIT $1::int`,
      limit,
    );
    let closed = 0;
    for (const { run_id: runId } of runs) {
      closed += await this.db.transaction(async (tx) => {
        await tx.$queryRawUnsafe(LOCK_LANE_SQL, runId);
        return (await closeRunApprovals(tx, [runId], `sweep:${runId}`)).length;
      });
    }
    return closed;
  }
}

/**
 * Why a decision was not recorded: the approval was decided before, or its
 * run was stopped meanwhile — then its pending approvals are closed `denied`
 * by the platform here, and the decision is refused like any late one. The
 * caller holds the run's lane lock.
 */
async function refuseDecision(tx: SqlRunner, workspace: ApprovalWorkspace, id: string, runId: string, correlationId: string): Promise<DecideResult> {
  const [stopped] = await tx.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT id::text AS id FROM runs WHERE id = $1::uuid AND (stop_requested OR status IN ${TERMINAL_STATUSES})`,
    runId,
  );
  if (stopped) await closeRunApprovals(tx, [runId], correlationId);
  const recorded = await readApproval(tx, id, workspace.id);
  return recorded ? { ok: false, reason: 'already_decided', approval: recorded } : { ok: false, reason: 'not_found' };
}

/** An approval as recorded now, in the caller's workspace. */
async function readApproval(tx: SqlRunner, id: string, workspaceId: string): Promise<Approval | null> {
  const [row] = await tx.$queryRawUnsafe<ApprovalRunRow[]>(
    `WITH a AS (SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1::uuid AND workspace_id = $2::uuid) SELECT ${WITH_CONTEXT}`,
    id,
    workspaceId,
  );
  return row ? approvalFromRow(row, row.slug) : null;
}

/** The approvals' changes recorded as their facts, in the changes' transaction; returns the approvals. */
async function recordChanges(tx: SqlRunner, rows: readonly ApprovalRunRow[], kind: ApprovalFactKind, actor: Actor, correlationId: string): Promise<Approval[]> {
  const approvals = rows.map((row) => approvalFromRow(row, row.slug));
  const items = rows.map((row, i) => {
    // Caused by its run, one step deeper, as the run's own facts are (decision 0024).
    const causedBy: CausedBy = { runId: row.run_id, agentId: row.agent_id, depth: Number(row.run_depth ?? 0) + 1 };
    return { fact: approvalFact({ workspaceId: row.workspace_id, workspaceSlug: row.slug, actor }, kind, approvals[i]!, causedBy), correlationId };
  });
  await recordFacts(tx, items);
  return approvals;
}

/**
 * Moves the run back into its lane's line (run_queue_resume, keeping its
 * place) when nothing holds it any more. The caller holds the run's lane lock
 * and enqueues the run's activation after the commit.
 */
export async function resumeIfReady(tx: SqlRunner, runId: string): Promise<ResumedRun | null> {
  const [row] = await tx.$queryRawUnsafe<Array<{ resumed: boolean; workspace_id: string; agent_id: string }>>(RESUME_IF_READY_SQL, runId);
  return row?.resumed ? { runId, workspaceId: row.workspace_id, agentId: row.agent_id } : null;
}

/**
 * Closes the pending approvals of these runs `denied` by the platform
 * (`run_stopped`), each with its `approval.decided`, and cancels those of
 * them that are parked (a parked run has no runner to cancel it). The caller
 * holds the runs' lane locks. Returns the approvals closed.
 */
export async function closeRunApprovals(tx: SqlRunner, runIds: readonly string[], correlationId: string): Promise<Approval[]> {
  if (runIds.length === 0) return [];
  await tx.$executeRawUnsafe(
    `UPDATE runs SET status = 'cancelled', reason = $2::text, stop_requested = true, ended_at = clock_timestamp()
     WHERE id = ANY($1::uuid[]) AND status = 'awaiting_approval'`,
    [...runIds],
    RUN_CANCEL_REASONS.stopped,
  );
  const rows = await tx.$queryRawUnsafe<ApprovalRunRow[]>(
    `WITH a AS (
       UPDATE approvals SET status = 'denied', decided_by = $2::jsonb, decided_at = clock_timestamp()
       WHERE run_id = ANY($1::uuid[]) AND status = 'pending'
       RETURNING ${APPROVAL_COLUMNS})
     SELECT ${WITH_CONTEXT} ORDER BY a.requested_at, a.id`,
    [...runIds],
    JSON.stringify(RUN_STOPPED),
  );
  return recordChanges(tx, rows, APPROVAL_FACT_KINDS.decided, SYSTEM_ACTOR, correlationId);
}

/** The lock of a run's lane, for a caller that changes a parked run in its own transaction. */
export async function lockRunLane(tx: SqlRunner, runId: string): Promise<void> {
  await tx.$queryRawUnsafe(LOCK_LANE_SQL, runId);
}
