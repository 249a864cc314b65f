import { RunWaitResolveRowSchema, WAIT_STATUSES, type Fact, type TriggerFilter, type WaitForEventResult } from '@switchyard/contracts';
import { factFromRow, type FactRow, type SqlRunner } from '@switchyard/db';
import type { ResumedRun } from '../approvals/approval-store';
import { parseRow } from '../queue-rows';
import { waitPredicate } from './wait-match';

/** A fact with its workspace's id, as the matcher holds it. */
export interface WorkspaceFact {
  workspaceId: string;
  fact: Fact;
}

/** A run a resolved wait put back in line, with the wait: its wake's key (one job per resume). */
export interface ResumedWait extends ResumedRun {
  waitId: string;
}

/** A pending wait as stored. */
interface PendingWaitRow {
  id: string;
  workspace_id: string;
  kind: string;
  filter: TriggerFilter | null;
  after_seq: string | number | bigint;
  slug: string;
}

const PENDING_COLUMNS = `w.id::text AS id, w.workspace_id::text AS workspace_id, w.kind, w.filter, w.after_seq, ws.slug`;

/**
 * The waits for a fact (decision 0055), on the side that resolves them: the
 * matcher gives it every batch of facts after they are committed, its sweep
 * looks for facts a lost stream entry hid, and its timer closes the waits
 * past their deadline. Every resolution is `run_wait_resolve`: conditional on
 * the wait being pending, under the run's lane lock, so a wait resolves once
 * and its run resumes once whoever gets there first. The caller wakes the
 * runs returned (RunWaker.wakeOrLeaveToSweep).
 */
export class SqlWaitBook {
  constructor(private readonly sql: SqlRunner) {}

  /** Resolves the pending waits of these facts' workspaces that one of them matches (the lowest seq first). */
  async matchFacts(facts: readonly WorkspaceFact[]): Promise<ResumedWait[]> {
    if (facts.length === 0) return [];
    const workspaces = [...new Set(facts.map((item) => item.workspaceId))];
    const pending = await this.sql.$queryRawUnsafe<PendingWaitRow[]>(
      `SELECT ${PENDING_COLUMNS} FROM run_waits w JOIN workspaces ws ON ws.id = w.workspace_id
        WHERE w.workspace_id = ANY($1::uuid[]) AND w.status = 'pending'`,
      workspaces,
    );
    if (pending.length === 0) return [];
    const ordered = [...facts].sort((a, b) => a.fact.seq - b.fact.seq);
    const resumed: ResumedWait[] = [];
    for (const wait of pending) {
      const matches = waitPredicate(specOf(wait));
      const hit = ordered.find((item) => item.workspaceId === wait.workspace_id && matches(item.fact));
      if (hit) await this.resolve(wait.id, WAIT_STATUSES.matched, hit.fact, resumed);
    }
    return resumed;
  }

  /**
   * Looks for a matching stored fact for each pending wait (at most `limit`
   * waits, oldest first): what resolves a wait whose fact the matcher never
   * saw on the stream (Redis lost it, or every matcher was down).
   */
  async sweep(limit: number, factsPerWait = 1_000): Promise<ResumedWait[]> {
    const pending = await this.sql.$queryRawUnsafe<PendingWaitRow[]>(
      `SELECT ${PENDING_COLUMNS} FROM run_waits w JOIN workspaces ws ON ws.id = w.workspace_id
        WHERE w.status = 'pending' ORDER BY w.created_at LIMIT $1::int`,
      limit,
    );
    const resumed: ResumedWait[] = [];
    for (const wait of pending) {
      const rows = await this.sql.$queryRawUnsafe<FactRow[]>(
        `SELECT id::text AS id, workspace_id::text AS workspace_id, seq, kind, subject_type, subject_id, actor, stated_actor, payload, caused_by, idempotency_key, ts
           FROM platform_events WHERE workspace_id = $1::uuid AND seq > $2::bigint ORDER BY seq LIMIT $3::int`,
        wait.workspace_id,
        wait.after_seq,
        factsPerWait,
      );
      const fact = rows.map((row) => factFromRow(row, wait.slug)).find(waitPredicate(specOf(wait)));
      if (fact) await this.resolve(wait.id, WAIT_STATUSES.matched, fact, resumed);
    }
    return resumed;
  }

  /** Closes the pending waits past their deadline (the database's clock) `timed_out`, oldest deadline first. */
  async expireDue(limit: number): Promise<ResumedWait[]> {
    const due = await this.sql.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id::text AS id FROM run_waits WHERE status = 'pending' AND deadline <= clock_timestamp() ORDER BY deadline LIMIT $1::int`,
      limit,
    );
    const resumed: ResumedWait[] = [];
    for (const { id } of due) await this.resolve(id, WAIT_STATUSES.timedOut, null, resumed);
    return resumed;
  }

  /** The outcome of a run's wait once resolved, as the tool's result; null while pending or when there is none. */
  async outcome(runId: string, toolCallId: string): Promise<WaitForEventResult | { type: 'cancelled' } | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ status: string; kind: string; fact: Fact | null; timeout_ms: string | number }>>(
      `SELECT status, kind, fact, (extract(epoch FROM deadline - created_at) * 1000)::bigint AS timeout_ms
         FROM run_waits WHERE run_id = $1::uuid AND tool_call_id = $2`,
      runId,
      toolCallId,
    );
    if (!row || row.status === WAIT_STATUSES.pending) return null;
    if (row.status === WAIT_STATUSES.matched && row.fact) return { type: 'fact', fact: row.fact };
    if (row.status === WAIT_STATUSES.timedOut) return { type: 'timeout', kind: row.kind, timeoutMs: Number(row.timeout_ms) };
    return { type: 'cancelled' };
  }

  private async resolve(waitId: string, status: string, fact: Fact | null, resumed: ResumedWait[]): Promise<void> {
    const [result] = await this.sql.$queryRawUnsafe<Array<{ r: unknown }>>(
      'SELECT run_wait_resolve($1::uuid, $2, $3::jsonb) AS r',
      waitId,
      status,
      fact === null ? null : JSON.stringify(fact),
    );
    const row = parseRow(RunWaitResolveRowSchema, result?.r, 'run_wait_resolve');
    if (row.resolved && row.resumed && row.workspaceId && row.agentId) resumed.push({ runId: row.runId, workspaceId: row.workspaceId, agentId: row.agentId, waitId });
  }
}

function specOf(row: PendingWaitRow) {
  return { kind: row.kind, filter: row.filter, afterSeq: Number(row.after_seq) };
}
