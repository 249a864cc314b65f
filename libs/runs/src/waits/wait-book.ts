import { RUN_FACT_KINDS, RunWaitResolveRowSchema, WAIT_STATUSES, type Fact, type TriggerFilter, type WaitForEventResult } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow, type SqlRunner } from '@switchyard/db';
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
  run_id: string;
  workspace_id: string;
  kind: string;
  filter: TriggerFilter | null;
  after_seq: string | number | bigint;
  slug: string;
}

/** A pending wait as the book holds it: its predicate compiled once. */
interface PendingWait {
  id: string;
  runId: string;
  workspaceId: string;
  slug: string;
  afterSeq: number;
  matches: (fact: Fact) => boolean;
}

const PENDING_COLUMNS = `w.id::text AS id, w.run_id::text AS run_id, w.workspace_id::text AS workspace_id, w.kind, w.filter, w.after_seq, ws.slug`;

/**
 * The waits for a fact (decision 0055), on the side that resolves them: the
 * matcher gives it every batch of facts after they are committed, its sweep
 * looks for facts a lost stream entry hid, and its timer closes the waits
 * past their deadline. Every resolution is `run_wait_resolve`: conditional on
 * the wait being pending, under the run's lane lock, so a wait resolves once
 * and its run resumes once whoever gets there first. The caller wakes the
 * runs returned (RunWaker.wakeOrLeaveToSweep).
 *
 * A batch asks PostgreSQL nothing for a workspace whose pending waits the book
 * knows: it holds, per workspace, the waits read last (a superset of those
 * pending: one resolved elsewhere is dropped when a fact matches it and its
 * resolution finds it closed). A workspace is read again once a park is
 * announced — `parked`, called for every `agent.run.awaiting_event` up to the
 * batch's facts (the matcher reads them as it reads agent changes), and for
 * such a fact in the batch itself, whose wait is then also matched against the
 * stored facts up to it. Why no wait is missed: decision 0055, "Who resolves".
 */
export class SqlWaitBook {
  /** Per workspace, the waits read last and not resolved since. */
  private readonly known = new Map<string, PendingWait[]>();
  /** Workspaces with a park announced since they were read. */
  private readonly stale = new Set<string>();
  /** Whether `known` holds every workspace with a pending wait (load ran): one absent has none. */
  private loaded = false;

  constructor(private readonly sql: SqlRunner) {}

  /** Reads every pending wait: from then on a workspace not read has none until a park is announced. */
  async load(): Promise<void> {
    const rows = await this.sql.$queryRawUnsafe<PendingWaitRow[]>(
      `SELECT ${PENDING_COLUMNS} FROM run_waits w JOIN workspaces ws ON ws.id = w.workspace_id WHERE w.status = 'pending'`,
    );
    this.known.clear();
    this.stale.clear();
    for (const row of rows) this.know(pendingWait(row));
    this.loaded = true;
  }

  /** A run of the workspace parked on a wait (its `agent.run.awaiting_event`): the workspace is read again. */
  parked(workspaceId: string): void {
    this.stale.add(workspaceId);
  }

  /**
   * Resolves the pending waits of these facts' workspaces that one of them
   * matches (the lowest seq first); a wait parked by a run whose
   * `agent.run.awaiting_event` is among the facts is matched against the
   * stored facts up to it as well.
   */
  async matchFacts(facts: readonly WorkspaceFact[]): Promise<ResumedWait[]> {
    if (facts.length === 0) return [];
    const parks = new Map<string, number>();
    for (const { workspaceId, fact } of facts) {
      if (fact.kind !== RUN_FACT_KINDS.awaiting_event || fact.subject.type !== 'run') continue;
      parks.set(fact.subject.id, Math.max(fact.seq, parks.get(fact.subject.id) ?? 0));
      this.parked(workspaceId);
    }
    const workspaces = [...new Set(facts.map((item) => item.workspaceId))];
    const unread = workspaces.filter((id) => this.stale.has(id) || (!this.loaded && !this.known.has(id)));
    if (unread.length > 0) {
      // Marked read before the read: a park announced meanwhile marks its workspace again.
      for (const id of unread) this.stale.delete(id);
      let rows: PendingWaitRow[];
      try {
        rows = await this.sql.$queryRawUnsafe<PendingWaitRow[]>(
          `SELECT ${PENDING_COLUMNS} FROM run_waits w JOIN workspaces ws ON ws.id = w.workspace_id
            WHERE w.workspace_id = ANY($1::uuid[]) AND w.status = 'pending'`,
          unread,
        );
      } catch (error) {
        for (const id of unread) this.stale.add(id);
        throw error;
      }
      for (const id of unread) this.known.delete(id);
      for (const row of rows) this.know(pendingWait(row));
    }
    const ordered = [...facts].sort((a, b) => a.fact.seq - b.fact.seq);
    const resumed: ResumedWait[] = [];
    for (const workspaceId of workspaces) {
      for (const wait of [...(this.known.get(workspaceId) ?? [])]) {
        // A wait announced in this batch: the facts up to its announcement may have gone by before
        // any matcher knew it (stored, they are read); those after it are the batch's.
        const parkedAt = parks.get(wait.runId);
        const stored = parkedAt === undefined ? null : await this.storedMatch(wait, parkedAt);
        const hit = stored ?? ordered.find((item) => item.workspaceId === workspaceId && wait.matches(item.fact))?.fact;
        if (hit) await this.resolve(wait.id, WAIT_STATUSES.matched, hit, resumed);
      }
    }
    return resumed;
  }

  /**
   * Looks for a matching stored fact for each pending wait (at most `limit`
   * waits, oldest first): what resolves a wait whose fact the matcher never
   * saw on the stream (Redis lost it, or every matcher was down).
   */
  async sweep(limit: number): Promise<ResumedWait[]> {
    const rows = await this.sql.$queryRawUnsafe<PendingWaitRow[]>(
      `SELECT ${PENDING_COLUMNS} FROM run_waits w JOIN workspaces ws ON ws.id = w.workspace_id
        WHERE w.status = 'pending' ORDER BY w.created_at LIMIT $1::int`,
      limit,
    );
    const resumed: ResumedWait[] = [];
    for (const row of rows) {
      const wait = pendingWait(row);
      const fact = await this.storedMatch(wait);
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

  /** The first stored fact after the wait's seq (up to `uptoSeq`) that matches it; null when none of the next 1,000 does. */
  private async storedMatch(wait: PendingWait, uptoSeq?: number): Promise<Fact | null> {
    const rows = await this.sql.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE workspace_id = $1::uuid AND seq > $2::bigint AND ($3::bigint IS NULL OR seq <= $3::bigint) ORDER BY seq LIMIT ${FACTS_PER_WAIT}`,
      wait.workspaceId,
      wait.afterSeq,
      uptoSeq ?? null,
    );
    return rows.map((row) => factFromRow(row, wait.slug)).find(wait.matches) ?? null;
  }

  private know(wait: PendingWait): void {
    const list = this.known.get(wait.workspaceId) ?? [];
    list.push(wait);
    this.known.set(wait.workspaceId, list);
  }

  /** Resolves a wait if it is still pending; either way the book forgets it (it is closed now). */
  private async resolve(waitId: string, status: string, fact: Fact | null, resumed: ResumedWait[]): Promise<void> {
    const [result] = await this.sql.$queryRawUnsafe<Array<{ r: unknown }>>(
      'SELECT run_wait_resolve($1::uuid, $2, $3::jsonb) AS r',
      waitId,
      status,
      fact === null ? null : JSON.stringify(fact),
    );
    const row = parseRow(RunWaitResolveRowSchema, result?.r, 'run_wait_resolve');
    if (row.resolved && row.resumed && row.workspaceId && row.agentId) resumed.push({ runId: row.runId, workspaceId: row.workspaceId, agentId: row.agentId, waitId });
    // Resolved here or elsewhere (a timeout matched only if still pending: it is not, or not yet due).
    if (row.resolved || status === WAIT_STATUSES.matched) this.forget(waitId);
  }

  private forget(waitId: string): void {
    for (const [workspaceId, waits] of this.known) {
      const left = waits.filter((wait) => wait.id !== waitId);
      if (left.length === waits.length) continue;
      if (left.length > 0) this.known.set(workspaceId, left);
      else this.known.delete(workspaceId);
      return;
    }
  }
}

/** Facts read per wait when matching it against stored facts. */
const FACTS_PER_WAIT = 1_000;

function pendingWait(row: PendingWaitRow): PendingWait {
  return {
    id: row.id,
    runId: row.run_id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    afterSeq: Number(row.after_seq),
    matches: waitPredicate({ kind: row.kind, filter: row.filter, afterSeq: Number(row.after_seq) }),
  };
}
