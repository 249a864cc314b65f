import type { AcceptedFact, Fact } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow } from './fact-rows';
import type { SqlRunner } from './sql-pool';

/** What became of one accepted fact when it was to be stored. */
export type AppendOutcome =
  /** Stored now, with its seq. */
  | { status: 'inserted'; fact: Fact; workspaceId: string }
  /** The same id was stored before (a redelivered entry, a relayed row relayed again): publish it again. */
  | { status: 'existing'; fact: Fact; workspaceId: string }
  /** Another fact of the workspace holds the idempotencyKey: resolves to it. */
  | { status: 'duplicate'; originalId: string }
  /** The workspace does not exist (deleted, or a forged entry). */
  | { status: 'unknown_workspace' }
  /** PostgreSQL refuses a value of it for good (a data exception, SQLSTATE class 22). */
  | { status: 'refused'; reason: string };

/** The system of record for facts. */
export interface FactStore {
  /**
   * Stores a batch, idempotent on id and on (workspace, idempotencyKey),
   * assigning each workspace's next seqs in input order. Returns one outcome
   * per input, in order.
   */
  append(facts: readonly AcceptedFact[]): Promise<AppendOutcome[]>;
}

/**
 * FactStore on PostgreSQL, with no explicit transaction. A batch is written
 * by one statement that locks each workspace's seq row (`FOR UPDATE`, in
 * workspace order, so two event-log processes never deadlock), numbers the
 * new facts from it, inserts them and advances the seq rows. The lock
 * serializes the writers of a workspace until the statement commits, so seqs
 * are dense and commit in order and `after=<seq>` paging is safe.
 * The write is tried first as if every fact were new (nearly always true).
 * A fact stored before — a redelivered entry, an idempotency key Redis no
 * longer remembered, a concurrent writer's — fails it on a unique index with
 * nothing written; then the facts already stored are looked up by id and by
 * (workspace, idempotencyKey), and only the others are written. Raw SQL on a
 * plain `pg` pool: the hot path (decision 0015). One round trip per batch
 * instead of five (BEGIN, lock, find, insert, COMMIT) — decision 0002.
 * A value PostgreSQL refuses for good (a data exception) fails the statement
 * too: the facts are then written one by one and only the refused ones are
 * reported `refused` (decision 0004).
 */
export class SqlFactStore implements FactStore {
  constructor(private readonly sql: SqlRunner) {}

  async append(facts: readonly AcceptedFact[]): Promise<AppendOutcome[]> {
    if (facts.length === 0) return [];
    try {
      return await this.appendBatch(facts);
    } catch (error) {
      if (!isDataException(error)) throw error;
      // PostgreSQL refuses a value in it for good. Alone, the fact is refused; in a batch, each fact is
      // written on its own (in order, so seqs stay in batch order) to tell which one it is.
      if (facts.length === 1) return [{ status: 'refused', reason: refusalText(error) }];
      const outcomes: AppendOutcome[] = [];
      for (const fact of facts) outcomes.push(...(await this.append([fact])));
      return outcomes;
    }
  }

  private async appendBatch(facts: readonly AcceptedFact[]): Promise<AppendOutcome[]> {
    // Optimistic first: nearly every batch is new facts, written in one statement. A repeat
    // (a redelivered entry, a key already stored) fails it on a unique index, writing nothing;
    // the batch is then resolved against what is stored.
    const optimistic = resolve(facts, NOTHING_STORED);
    if (optimistic.fresh.length === facts.length) {
      try {
        return complete(optimistic, await this.insert(facts));
      } catch (error) {
        if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
      }
    }
    const checked = resolve(facts, await this.findExisting(this.sql, facts));
    const fresh = checked.fresh.map(({ fact }) => fact);
    return complete(checked, fresh.length > 0 ? await this.insert(fresh) : new Map());
  }

  private async findExisting(sql: SqlRunner, facts: readonly AcceptedFact[]): Promise<Stored> {
    const keyed = facts.filter((fact) => fact.idempotencyKey !== undefined);
    const found = await sql.$queryRawUnsafe<FactRow[]>(
      // A key is found through platform_event_keys, which holds each stored key once (the facts'
      // partitions cannot index it uniquely, decision 0041).
      `SELECT ${FACT_COLUMNS} FROM platform_events WHERE id = ANY($1::uuid[])
       UNION ALL
       SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE id IN (SELECT k.event_id FROM platform_event_keys k
                      WHERE (k.workspace_id, k.idempotency_key) IN (SELECT * FROM unnest($2::uuid[], $3::text[])))`,
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

  /**
   * Locks the seq rows, numbers and inserts the facts (in order, per
   * workspace) and advances the seq rows, in one statement. Returns the seq
   * of each fact inserted; facts of a workspace without a seq row are not.
   */
  private async insert(facts: readonly AcceptedFact[]): Promise<Map<string, number>> {
    const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
    const rows = await this.sql.$queryRawUnsafe<Array<{ id: string; seq: string }>>(
      `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[],
                              $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::text[])
           WITH ORDINALITY AS v(id, workspace_id, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, ts, stated_actor, ord)),
       ${numberedInsertCtes('v', 'ord', 'actor::jsonb, stated_actor::jsonb, payload::jsonb, caused_by::jsonb')}
       SELECT id::text AS id, seq FROM inserted`,
      facts.map((fact) => fact.id),
      facts.map((fact) => fact.workspaceId),
      facts.map((fact) => fact.kind),
      facts.map((fact) => fact.subject.type),
      facts.map((fact) => fact.subject.id),
      facts.map((fact) => json(fact.actor)),
      facts.map((fact) => JSON.stringify(fact.payload)),
      facts.map((fact) => json(fact.causedBy)),
      facts.map((fact) => fact.idempotencyKey ?? null),
      facts.map((fact) => fact.ts),
      facts.map((fact) => json(fact.statedActor)),
    );
    return new Map(rows.map((row) => [row.id, Number(row.seq)]));
  }
}

/**
 * The CTEs that store the facts of the CTE `source` (the columns of
 * platform_events but seq, and an `order` column): `locked` locks their
 * workspaces' seq rows (in workspace order, so two writers never deadlock),
 * `numbered` numbers them from those in `order`, `inserted` inserts them
 * (returning id and seq) and `advanced` moves the seq rows on. `json` is the
 * list of the actor, stated actor, payload and cause expressions (casts of
 * text parameters, or jsonb columns as they are). Facts of a workspace
 * without a seq row are not inserted. For SqlFactStore and the outbox relay's
 * round (STORE_ROUND_SQL): one numbering of facts.
 */
export function numberedInsertCtes(source: string, order: string, json: string): string {
  return `locked AS (
         SELECT workspace_id, last_seq FROM workspace_event_seq
          WHERE workspace_id IN (SELECT workspace_id FROM ${source}) ORDER BY workspace_id FOR UPDATE),
       numbered AS (
         SELECT f.*, l.last_seq + row_number() OVER (PARTITION BY f.workspace_id ORDER BY f.${order}) AS seq
           FROM ${source} f JOIN locked l ON l.workspace_id = f.workspace_id),
       inserted AS (
         INSERT INTO platform_events
           (id, workspace_id, seq, kind, subject_type, subject_id, actor, stated_actor, payload, caused_by, idempotency_key, ts)
         SELECT id, workspace_id, seq, kind, subject_type, subject_id, ${json}, idempotency_key, ts
           FROM numbered ORDER BY ${order}
         RETURNING id, seq),
       advanced AS (
         UPDATE workspace_event_seq s SET last_seq = n.last
           FROM (SELECT workspace_id, max(seq) AS last FROM numbered GROUP BY workspace_id) n
          WHERE s.workspace_id = n.workspace_id)`;
}

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/**
 * SQLSTATE class 22, data exception: a value PostgreSQL will never store (U+0000 in
 * text or jsonb, an invalid escape, a value out of range). Retrying cannot help.
 */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('22');
}

function refusalText(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  return `PostgreSQL refused the fact (SQLSTATE ${code}): ${message ?? 'data exception'}`;
}

/** What the store holds of a batch's ids and keys. */
interface Stored {
  byId: ReadonlyMap<string, FactRow>;
  /** `workspaceId \0 idempotencyKey` → the id that holds it. */
  byKey: ReadonlyMap<string, string>;
}

const NOTHING_STORED: Stored = { byId: new Map(), byKey: new Map() };

/** A batch with each fact's outcome decided, except the fresh ones (still to insert). */
interface Resolution {
  outcomes: Array<AppendOutcome | undefined>;
  fresh: Array<{ fact: AcceptedFact; index: number }>;
}

/** Decides each fact against what is stored and against the batch's earlier facts. */
function resolve(facts: readonly AcceptedFact[], stored: Stored): Resolution {
  const outcomes: Array<AppendOutcome | undefined> = [];
  const fresh: Array<{ fact: AcceptedFact; index: number }> = [];
  const claimedKeys = new Map<string, string>();
  const claimedIds = new Set<string>();
  facts.forEach((fact, index) => {
    const keyRef = fact.idempotencyKey === undefined ? undefined : `${fact.workspaceId}\u0000${fact.idempotencyKey}`;
    const byId = stored.byId.get(fact.id);
    if (byId) {
      outcomes.push({ status: 'existing', fact: factFromRow(byId, fact.workspace), workspaceId: fact.workspaceId });
    } else if (keyRef && (stored.byKey.has(keyRef) || claimedKeys.has(keyRef))) {
      outcomes.push({ status: 'duplicate', originalId: stored.byKey.get(keyRef) ?? claimedKeys.get(keyRef)! });
    } else if (claimedIds.has(fact.id)) {
      outcomes.push({ status: 'duplicate', originalId: fact.id });
    } else {
      claimedIds.add(fact.id);
      if (keyRef) claimedKeys.set(keyRef, fact.id);
      fresh.push({ fact, index });
      outcomes.push(undefined);
    }
  });
  return { outcomes, fresh };
}

/** The outcomes once the fresh facts were inserted with these seqs. */
function complete({ outcomes, fresh }: Resolution, seqs: ReadonlyMap<string, number>): AppendOutcome[] {
  for (const { fact, index } of fresh) {
    const seq = seqs.get(fact.id);
    // Not numbered: its workspace has no seq row (it does not exist).
    outcomes[index] = seq === undefined ? { status: 'unknown_workspace' } : { status: 'inserted', fact: { ...withoutWorkspaceId(fact), seq }, workspaceId: fact.workspaceId };
  }
  return outcomes as AppendOutcome[];
}

function withoutWorkspaceId(fact: AcceptedFact): Omit<Fact, 'seq'> {
  const { workspaceId: _workspaceId, ...rest } = fact;
  return rest;
}
