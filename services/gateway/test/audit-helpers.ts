import type { Client } from 'pg';
import { AUDIT_FACT_KINDS, type Role } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import type { TestPlatform } from '@switchyard/testing';

/** A stored fact as the audit tests read it from platform_events. */
export interface StoredFact {
  seq: number;
  kind: string;
  subject: { type: string; id: string };
  actor: { type: string; id: string; name?: string } | null;
  payload: Record<string, unknown>;
}

/**
 * Why this exists: until the people work lands, a workspace holds one
 * person (its first admin). The audit tests need a second person to filter
 * by; this adds one as the admin command would (user, membership, token),
 * and returns their id and API token.
 */
export async function addPerson(pg: Client, workspaceId: string, name: string, role: Role): Promise<{ userId: string; token: string }> {
  const userId = newId();
  const token = newTokenSecret();
  await pg.query('INSERT INTO users (id, name) VALUES ($1, $2)', [userId, name]);
  await pg.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3::"Role")', [workspaceId, userId, role]);
  await pg.query('INSERT INTO api_tokens (id, workspace_id, user_id, name, role, prefix, hash) VALUES ($1, $2, $3, $4, $5::"Role", $6, $7)', [
    newId(),
    workspaceId,
    userId,
    `${name}'s token`,
    role,
    tokenPrefix(token),
    hashToken(token),
  ]);
  return { userId, token };
}

/**
 * The audit facts of a workspace stored after `afterSeq`, oldest first, once
 * the outbox is relayed (the platform's own facts reach platform_events
 * through it): so "exactly one fact" is counted on a settled store.
 */
export async function auditFactsAfter(platform: TestPlatform, pg: Client, workspaceId: string, afterSeq: number): Promise<StoredFact[]> {
  await platform.factsRecorded();
  const { rows } = await pg.query(
    `SELECT seq::int AS seq, kind, json_build_object('type', subject_type, 'id', subject_id) AS subject, actor, payload
       FROM platform_events WHERE workspace_id = $1 AND seq > $2 AND kind = ANY($3::text[]) ORDER BY seq`,
    [workspaceId, afterSeq, [...AUDIT_FACT_KINDS]],
  );
  return rows;
}

/** The workspace's last seq once every fact so far is stored: a mark to count the facts of one change after. */
export async function settledSeq(platform: TestPlatform, pg: Client, workspaceId: string): Promise<number> {
  await platform.factsRecorded();
  return Number((await pg.query('SELECT last_seq FROM workspace_event_seq WHERE workspace_id = $1', [workspaceId])).rows[0]?.last_seq ?? 0);
}

/** Every fact and outbox row as text, to search for a secret that must never be there. */
export async function everyFactAsText(pg: Client): Promise<string> {
  const stored = await pg.query('SELECT row_to_json(e)::text AS row FROM platform_events e');
  const waiting = await pg.query('SELECT row_to_json(o)::text AS row FROM fact_outbox o');
  return [...stored.rows, ...waiting.rows].map((r) => r.row).join('\n');
}
