import { AcceptedFactSchema, type AcceptedFact, type Fact } from '@switchyard/contracts';
import type { FactPublisher } from './fact-recorder';
import { numberedInsertCtes } from './sql-fact-store';

/** What the relay logs; a pino logger fits. */
export interface RelayLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The columns of an outbox row as a fact, with its workspace's slug (`o` the outbox, `w` the workspaces). */
export const ROW_COLUMNS = `o.id::text AS id, o.workspace_id::text AS workspace_id, w.slug, o.kind, o.subject_type, o.subject_id,
    o.actor, o.payload, o.caused_by, o.idempotency_key, o.ts, o.correlation_id
  FROM fact_outbox o JOIN workspaces w ON w.id = o.workspace_id`;

/** An outbox row read with ROW_COLUMNS. */
export interface OutboxRow {
  id: string;
  workspace_id: string;
  slug: string;
  kind: string;
  subject_type: string;
  subject_id: string;
  actor: unknown;
  payload: unknown;
  caused_by: unknown;
  idempotency_key: string | null;
  ts: Date;
  correlation_id: string;
}

/** An outbox row with the seq its fact is stored under; null when it is not stored (its workspace has no seq row). */
export interface StoredOutboxRow extends OutboxRow {
  seq: string | number | null;
}

/** An outbox row as the fact it records, parsed at this boundary; null when it does not parse. */
export function factOf(row: OutboxRow): AcceptedFact | null {
  const parsed = AcceptedFactSchema.safeParse({
    id: row.id,
    workspace: row.slug,
    workspaceId: row.workspace_id,
    kind: row.kind,
    subject: { type: row.subject_type, id: row.subject_id },
    ...(row.actor ? { actor: row.actor } : {}),
    payload: row.payload,
    ...(row.caused_by ? { causedBy: row.caused_by } : {}),
    ...(row.idempotency_key ? { idempotencyKey: row.idempotency_key } : {}),
    ts: row.ts.toISOString(),
  });
  return parsed.success ? parsed.data : null;
}

/**
 * A relay round in one statement: deletes the rows the last round settled
 * ($2), takes the next rows in order ($1 at most), stores those not stored
 * yet in `platform_events` — numbered from their workspaces' seq rows as
 * SqlFactStore numbers a batch (numberedInsertCtes) — and returns every row
 * taken with its fact's seq. A row stored before (its relay died before the
 * delete) is found by its id and ts (the fact log's primary key) and comes
 * back with the seq it has. A row whose fact cannot be stored so — its
 * idempotency key held by another fact, its id stored meanwhile by a
 * writer's flush, a value PostgreSQL refuses — fails the statement, with
 * nothing written and nothing deleted; the relay then resolves the round
 * fact by fact (FactRecorder).
 */
export const STORE_ROUND_SQL = `WITH settled AS (DELETE FROM fact_outbox WHERE id = ANY($2::uuid[])),
  taken AS (
    SELECT o.id, o.workspace_id, w.slug, o.kind, o.subject_type, o.subject_id, o.actor, o.payload, o.caused_by,
           o.idempotency_key, o.ts, o.correlation_id, o.position
      FROM fact_outbox o JOIN workspaces w ON w.id = o.workspace_id
     WHERE o.id <> ALL($2::uuid[]) ORDER BY o.position LIMIT $1),
  stored AS (
    SELECT p.id, p.seq FROM platform_events p WHERE (p.id, p.ts) IN (SELECT id, ts FROM taken)),
  fresh AS (
    SELECT * FROM taken WHERE id NOT IN (SELECT id FROM stored)),
  ${numberedInsertCtes('fresh', 'position', 'actor, NULL::jsonb, payload, caused_by')}
  SELECT t.id::text AS id, t.workspace_id::text AS workspace_id, t.slug, t.kind, t.subject_type, t.subject_id, t.actor, t.payload,
         t.caused_by, t.idempotency_key, t.ts, t.correlation_id, coalesce(i.seq, s.seq) AS seq
    FROM taken t LEFT JOIN inserted i ON i.id = t.id LEFT JOIN stored s ON s.id = t.id
   ORDER BY t.position`;

/**
 * Whether STORE_ROUND_SQL failed for one of its rows rather than for the
 * database: a unique violation (a key another fact holds, a row a flush
 * stored meanwhile) or a data exception (SQLSTATE class 22, a value
 * PostgreSQL refuses). The round is then resolved fact by fact.
 */
export function failedForARow(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '23505' || (typeof code === 'string' && code.startsWith('22'));
}

/**
 * Publishes the facts of rows STORE_ROUND_SQL stored (now, or before), in
 * their order; returns the ids of the rows published, for the next round to
 * delete. A row not stored (its workspace has no seq row) or that does not
 * parse as a fact is kept in the outbox and logged, unpublished, until
 * someone looks.
 */
export async function publishStored(publisher: FactPublisher, log: RelayLog, rows: readonly StoredOutboxRow[]): Promise<string[]> {
  const facts: Array<{ fact: Fact; workspaceId: string; correlationId: string }> = [];
  const settled: string[] = [];
  for (const row of rows) {
    const fact = row.seq === null ? null : factOf(row);
    if (!fact) {
      const why = row.seq === null ? 'its workspace has no fact sequence' : 'stored, but does not parse as a fact';
      log.error({ outboxId: row.id, kind: row.kind, why }, 'outbox row not published; left in the outbox');
      continue;
    }
    const { workspaceId, ...rest } = fact;
    facts.push({ fact: { ...rest, seq: Number(row.seq) }, workspaceId, correlationId: row.correlation_id });
    settled.push(row.id);
  }
  if (facts.length > 0) await publisher.publish(facts);
  return settled;
}
