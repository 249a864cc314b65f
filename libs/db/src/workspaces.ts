import { AppError, ErrorCode } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import type { SqlRunner } from './sql-pool';

/** A new workspace: its ids and its first admin token's secret (returned once, stored only hashed). */
export interface CreatedWorkspace {
  workspaceId: string;
  userId: string;
  token: string;
}

/** The workspace, its seq row, its `admin` user, the membership and the token: one statement, so all or nothing. */
const CREATE_SQL = `WITH w AS (INSERT INTO workspaces (id, slug) VALUES ($1::uuid, $2) RETURNING id),
  s AS (INSERT INTO workspace_event_seq (workspace_id) SELECT id FROM w),
  u AS (INSERT INTO users (id, name) VALUES ($3::uuid, $2 || ' admin') RETURNING id),
  m AS (INSERT INTO memberships (workspace_id, user_id, role) SELECT w.id, u.id, 'admin'::"Role" FROM w, u),
  t AS (INSERT INTO api_tokens (id, workspace_id, user_id, name, role, prefix, hash)
        SELECT $4::uuid, w.id, u.id, 'bootstrap admin', 'admin'::"Role", $5, $6 FROM w, u RETURNING id)
  SELECT count(*)::int AS n FROM t`;

/**
 * Creates a workspace with its first admin (the operator's `create-workspace`,
 * and the tests' workspaces). A slug taken already is WORKSPACE_EXISTS.
 */
export async function createWorkspace(sql: SqlRunner, slug: string): Promise<CreatedWorkspace> {
  const workspaceId = newId();
  const userId = newId();
  const token = newTokenSecret();
  try {
    await sql.$queryRawUnsafe(CREATE_SQL, workspaceId, slug, userId, newId(), tokenPrefix(token), hashToken(token));
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new AppError(ErrorCode.WORKSPACE_EXISTS, `workspace ${slug} already exists`, { slug });
    throw error;
  }
  return { workspaceId, userId, token };
}
