import type { AcceptedFact, Fact } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow, type SqlPool, type SqlRunner } from '@switchyard/db';
import type { AppendOutcome, FactStore } from '../ports';

/** Longest a statement of the batch's transaction may wait or run (a lock held by a stuck writer). */
const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * FactStore on PostgreSQL. One transaction per batch:
 * 1. lock each workspace's seq row (`FOR UPDATE`, in workspace order, so two
 *    event-log processes never deadlock) — this serializes the writers of a
 *    workspace, so rows commit in seq order and `after=<seq>` paging is safe;
 * 2. find facts already stored by id or by (workspace, idempotencyKey);
 * 3. insert the new ones with the next seqs, in one INSERT … SELECT unnest,
 *    and advance the seq rows in the same statement.
 * Raw SQL on a plain `pg` pool because this is the hot path (one statement
 * per step, not per row; no query compiler in between — decision 0015).
 */
export class SqlFactStore implements FactStore {
  constructor(private readonly sql: SqlPool) {}

  async append(facts: readonly AcceptedFact[]): Promise<AppendOutcome[]> {
    if (facts.length === 0) return [];
    return this.sql.$transaction((tx) => this.appendIn(tx, facts), { statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  }

  private async appendIn(tx: SqlRunner, facts: readonly AcceptedFact[]): Promise<AppendOutcome[]> {
    const workspaceIds = [...new Set(facts.map((fact) => fact.workspaceId))].sort();
    const seqRows = await tx.$queryRawUnsafe<Array<{ workspace_id: string; last_seq: string }>>(
      `SELECT workspace_id::text AS workspace_id, last_seq FROM workspace_event_seq
        WHERE workspace_id = ANY($1::uuid[]) ORDER BY workspace_id FOR UPDATE`,
      workspaceIds,
    );
    const lastSeq = new Map(seqRows.map((row) => [row.workspace_id, BigInt(row.last_seq)]));
    const existing = await this.findExisting(tx, facts);

    const outcomes: AppendOutcome[] = [];
    const rows: Array<{ fact: AcceptedFact; seq: bigint }> = [];
    const claimedKeys = new Map<string, string>();
    const claimedIds = new Set<string>();
    for (const fact of facts) {
      const current = lastSeq.get(fact.workspaceId);
      const keyRef = fact.idempotencyKey === undefined ? undefined : `${fact.workspaceId}\u0000${fact.idempotencyKey}`;
      const byId = existing.byId.get(fact.id);
      if (current === undefined) {
        outcomes.push({ status: 'unknown_workspace' });
      } else if (byId) {
        outcomes.push({ status: 'existing', fact: factFromRow(byId, fact.workspace), workspaceId: fact.workspaceId });
      } else if (keyRef && (existing.byKey.has(keyRef) || claimedKeys.has(keyRef))) {
        outcomes.push({ status: 'duplicate', originalId: existing.byKey.get(keyRef) ?? claimedKeys.get(keyRef)! });
      } else if (claimedIds.has(fact.id)) {
        outcomes.push({ status: 'duplicate', originalId: fact.id });
      } else {
        const seq = current + 1n;
        lastSeq.set(fact.workspaceId, seq);
        rows.push({ fact, seq });
        claimedIds.add(fact.id);
        if (keyRef) claimedKeys.set(keyRef, fact.id);
        outcomes.push({ status: 'inserted', fact: { ...withoutWorkspaceId(fact), seq: Number(seq) }, workspaceId: fact.workspaceId });
      }
    }
    if (rows.length > 0) await this.insert(tx, rows, lastSeq);
    return outcomes;
  }

  private async findExisting(tx: SqlRunner, facts: readonly AcceptedFact[]) {
    const keyed = facts.filter((fact) => fact.idempotencyKey !== undefined);
    const found = await tx.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events WHERE id = ANY($1::uuid[])
       UNION ALL
       SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE (workspace_id, idempotency_key) IN (SELECT * FROM unnest($2::uuid[], $3::text[]))`,
      facts.map((fact) => fact.id),
      keyed.map((fact) => fact.workspaceId),
      keyed.map((fact) => fact.idempotencyKey!),
    );
    const byId = new Map<string, FactRow>();
    const byKey = new Map<string, string>();
    for (const row of found) {
      byId.set(row.id, row);
      if (row.idempotency_key !== null) byKey.set(`${row.workspace_id}\u0000${row.idempotency_key}`, row.id);
    }
    return { byId, byKey };
  }

  /** Inserts the rows and advances the seq rows, in one statement (one round trip less per batch). */
  private async insert(tx: SqlRunner, rows: Array<{ fact: AcceptedFact; seq: bigint }>, lastSeq: ReadonlyMap<string, bigint>): Promise<void> {
    const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
    await tx.$executeRawUnsafe(
      `WITH inserted AS (
         INSERT INTO platform_events
           (id, workspace_id, seq, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, ts)
         SELECT id, workspace_id, seq, kind, subject_type, subject_id, actor::jsonb, payload::jsonb, caused_by::jsonb, idempotency_key, ts
           FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[])
             AS v(id, workspace_id, seq, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, ts))
       UPDATE workspace_event_seq s SET last_seq = v.last_seq
         FROM unnest($12::uuid[], $13::bigint[]) AS v(workspace_id, last_seq)
        WHERE s.workspace_id = v.workspace_id`,
      rows.map((r) => r.fact.id),
      rows.map((r) => r.fact.workspaceId),
      rows.map((r) => r.seq),
      rows.map((r) => r.fact.kind),
      rows.map((r) => r.fact.subject.type),
      rows.map((r) => r.fact.subject.id),
      rows.map((r) => json(r.fact.actor)),
      rows.map((r) => JSON.stringify(r.fact.payload)),
      rows.map((r) => json(r.fact.causedBy)),
      rows.map((r) => r.fact.idempotencyKey ?? null),
      rows.map((r) => r.fact.ts),
      [...lastSeq.keys()],
      [...lastSeq.values()],
    );
  }
}

function withoutWorkspaceId(fact: AcceptedFact): Omit<Fact, 'seq'> {
  const { workspaceId: _workspaceId, ...rest } = fact;
  return rest;
}
