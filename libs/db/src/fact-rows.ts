import type { Fact } from '@switchyard/contracts';

/**
 * The columns of platform_events every raw query selects, so that one mapping
 * (factFromRow) turns rows into Facts for the event-log, the gateway and the
 * matcher alike.
 */
export const FACT_COLUMNS =
  'id::text AS id, workspace_id::text AS workspace_id, seq, kind, subject_type, subject_id, actor, stated_actor, payload, caused_by, idempotency_key, ts';

/** A row selected with FACT_COLUMNS. */
export interface FactRow {
  id: string;
  workspace_id: string;
  seq: bigint | number | string;
  kind: string;
  subject_type: string;
  subject_id: string;
  actor: unknown;
  stated_actor: unknown;
  payload: unknown;
  caused_by: unknown;
  idempotency_key: string | null;
  ts: Date | string;
}

/**
 * A stored row as the public Fact. The row was validated when it was written
 * (the event-log is its only writer), so this maps rather than re-parses.
 */
export function factFromRow(row: FactRow, workspaceSlug: string): Fact {
  const fact: Fact = {
    id: row.id,
    seq: Number(row.seq),
    workspace: workspaceSlug,
    kind: row.kind,
    subject: { type: row.subject_type, id: row.subject_id },
    payload: (row.payload ?? {}) as Fact['payload'],
    ts: (row.ts instanceof Date ? row.ts : new Date(row.ts)).toISOString(),
  };
  if (row.actor) fact.actor = row.actor as Fact['actor'];
  if (row.stated_actor) fact.statedActor = row.stated_actor as Fact['statedActor'];
  if (row.caused_by) fact.causedBy = row.caused_by as Fact['causedBy'];
  if (row.idempotency_key) fact.idempotencyKey = row.idempotency_key;
  return fact;
}
