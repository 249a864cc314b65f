import type { Client } from 'pg';
import { AcceptedFactSchema, OPS_FACT_PAYLOAD_SCHEMAS, type AcceptedFact, type OpsFactKind } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import type { OpsWorkspace } from '../src/ops/ops-ports';

/*
 * Why this exists: the ops watcher reads what other services write (runs,
 * agent versions, dead letters, the lane claims' notes). Its tests arrange
 * those rows directly in SQL, as those services leave them, and read the
 * facts it recorded back from the outbox, parsed with the contracts.
 */

/** A workspace with its fact counter, as `create-workspace` leaves it. */
export async function seedWorkspace(pg: Client, slug = `w${newId().slice(-10)}`): Promise<OpsWorkspace> {
  const id = newId();
  await pg.query('INSERT INTO workspaces (id, slug) VALUES ($1, $2)', [id, slug]);
  await pg.query('INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)', [id]);
  return { id, slug };
}

/** An agent whose version 1 has this model. */
export async function seedAgent(pg: Client, workspace: OpsWorkspace, model: Record<string, unknown> = { provider: 'openai', name: 'gpt-4.1-mini' }): Promise<string> {
  const id = newId();
  await pg.query(
    `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, $3, 1, true, $4, now())`,
    [id, workspace.id, `agent-${id.slice(-8)}`, newId()],
  );
  await pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, $2, $3)`, [id, JSON.stringify({ model }), newId()]);
  return id;
}

/** What a run row of a fixture may set. */
export interface RunFixture {
  status?: 'queued' | 'running' | 'failed' | 'completed' | 'cancelled';
  reason?: string | null;
  endedAt?: Date | null;
  originType?: string;
  leaseOwner?: string | null;
  leaseUntil?: Date | null;
  queuedAt?: Date;
}

/** Inserts `count` runs of an agent (lane `agent:<id>`); returns their ids in order. */
export async function insertRuns(pg: Client, workspace: OpsWorkspace, agentId: string, count: number, run: RunFixture = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, reason, ended_at, session_id, lease_owner, lease_until, queued_at, started_at)
       VALUES ($1, $2, $3, 1, $4, '{}', $5::"RunStatus", $6, $7, $8, $9, $10, coalesce($11, now()), CASE WHEN $5 = 'queued' THEN NULL ELSE now() END)`,
      [id, workspace.id, agentId, run.originType ?? 'manual', run.status ?? 'queued', run.reason ?? null, run.endedAt ?? null, newId(), run.leaseOwner ?? null, run.leaseUntil ?? null, run.queuedAt ?? null],
    );
    ids.push(id);
  }
  return ids;
}

/** A dead letter as StreamConsumer records it, its message naming a workspace the way the stream messages do. */
export async function insertLetter(pg: Client, letter: { stream: string; group: string; workspaceId?: string; error?: string; failedAt?: Date; replayed?: boolean; message?: string }): Promise<string> {
  const message =
    letter.message ??
    JSON.stringify({ id: newId(), type: 'fact_published', occurredAt: new Date().toISOString(), correlationId: 'c', schemaVersion: 1, workspaceId: letter.workspaceId, fact: { payload: {} } });
  const { rows } = await pg.query<{ id: string }>(
    `INSERT INTO dead_letters (stream, group_name, entry_id, consumer, deliveries, error, message, failed_at, replayed_at)
     VALUES ($1, $2, $3, 'c-1', 5, $4, $5, coalesce($6, now()), CASE WHEN $7 THEN now() END) RETURNING id::text AS id`,
    [letter.stream, letter.group, `${Date.now()}-${newId().slice(-6)}`, letter.error ?? 'boom', message, letter.failedAt ?? null, letter.replayed ?? false],
  );
  return rows[0]!.id;
}

/** The ops facts waiting in the outbox (no relay runs in these tests), oldest first, each parsed with its kind's payload schema. */
export async function opsFactsIn(pg: Client, kind?: OpsFactKind): Promise<AcceptedFact[]> {
  const { rows } = await pg.query(
    `SELECT o.id::text AS id, w.slug AS workspace, o.workspace_id::text AS "workspaceId", o.kind, o.subject_type, o.subject_id, o.actor, o.payload, o.ts
       FROM fact_outbox o JOIN workspaces w ON w.id = o.workspace_id
      WHERE o.kind LIKE 'platform.%' AND ($1::text IS NULL OR o.kind = $1) ORDER BY o.position`,
    [kind ?? null],
  );
  return rows.map((row) => {
    const { subject_type: type, subject_id: id, ts, ...rest } = row;
    const fact = AcceptedFactSchema.parse({ ...rest, subject: { type, id }, ts: ts.toISOString() });
    OPS_FACT_PAYLOAD_SCHEMAS[fact.kind as OpsFactKind].parse(fact.payload);
    return fact;
  });
}

/** A test's own database and the clock its watchers read (moved by the test: windows pass without waiting). */
export interface OpsTestContext {
  t: TestSql;
  now: Date;
}

/** Gives every test of the calling `describe` a fresh database and a clock set to the present. */
export function opsTestContext(): OpsTestContext {
  const ctx = {} as OpsTestContext;
  beforeEach(async () => {
    ctx.t = await createTestSql();
    ctx.now = new Date();
  });
  afterEach(async () => ctx.t?.close());
  return ctx;
}
