import { AppError, ErrorCode, type Role, type TokenInfo } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix, TOKEN_PREFIX } from '@switchyard/core';
import { type SqlRunner, TOKEN_INFO_COLUMNS, tokenInfoFromRow, type TokenInfoRow } from '@switchyard/db';

/** A token as the operator's CLI lists it: as the API does, and whose it is. */
export interface AdminTokenListing extends TokenInfo {
  userId: string;
  userName: string;
}

/** How a listed prefix is long: `sy_` and 6 characters (tokenPrefix). */
const PREFIX_LENGTH = tokenPrefix(newTokenSecret()).length;

interface TokenRow extends TokenInfoRow {
  userId: string;
  userName: string;
}

const toListing = (row: TokenRow): AdminTokenListing => ({ ...tokenInfoFromRow(row), userId: row.userId, userName: row.userName });

/** Creates an API token of `userId` in the workspace; its secret is returned once, stored only hashed. */
export async function createWorkspaceToken(
  sql: SqlRunner,
  token: { workspaceId: string; userId: string; name: string; role: Role },
): Promise<{ info: AdminTokenListing; secret: string }> {
  const secret = newTokenSecret();
  const rows = await sql.$queryRawUnsafe<TokenRow[]>(
    `WITH t AS (INSERT INTO api_tokens (id, workspace_id, user_id, name, role, prefix, hash)
                VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::"Role", $6, $7) RETURNING *)
     SELECT ${TOKEN_INFO_COLUMNS}, t.user_id::text AS "userId", u.name AS "userName" FROM t JOIN users u ON u.id = t.user_id`,
    newId(),
    token.workspaceId,
    token.userId,
    token.name,
    token.role,
    tokenPrefix(secret),
    hashToken(secret),
  );
  return { info: toListing(rows[0]!), secret };
}

/** Every API token of the workspace (revoked and expired ones too), oldest first. */
export async function listWorkspaceTokens(sql: SqlRunner, workspaceId: string): Promise<AdminTokenListing[]> {
  const rows = await sql.$queryRawUnsafe<TokenRow[]>(
    `SELECT ${TOKEN_INFO_COLUMNS}, t.user_id::text AS "userId", u.name AS "userName"
       FROM api_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.workspace_id = $1::uuid ORDER BY t.created_at, t.id`,
    workspaceId,
  );
  return rows.map(toListing);
}

/**
 * The id of the workspace's token that `ref` names: its id, its prefix (or the start of it) as
 * listed, or the whole token.
 * @throws AppError TOKEN_NOT_FOUND, TOKEN_AMBIGUOUS (a prefix that more than one token has)
 */
export async function findTokenId(sql: SqlRunner, workspaceId: string, ref: string): Promise<string> {
  const [where, value] = !ref.startsWith(TOKEN_PREFIX)
    ? ['t.id = $2::uuid', ref]
    : ref.length <= PREFIX_LENGTH
      ? ['starts_with(t.prefix, $2)', ref]
      : ['t.hash = $2', hashToken(ref)];
  const rows = await sql.$queryRawUnsafe<Array<{ id: string }>>(`SELECT t.id::text AS id FROM api_tokens t WHERE t.workspace_id = $1::uuid AND ${where} ORDER BY t.created_at`, workspaceId, value);
  // A whole token is never repeated back, not even in an error.
  const shown = ref.length > PREFIX_LENGTH && ref.startsWith(TOKEN_PREFIX) ? `${ref.slice(0, PREFIX_LENGTH)}…` : ref;
  if (rows.length === 0) throw new AppError(ErrorCode.TOKEN_NOT_FOUND, `no token ${shown} in this workspace (list-tokens shows them)`, { id: shown });
  if (rows.length > 1) {
    const ids = rows.map((row) => row.id);
    throw new AppError(ErrorCode.TOKEN_AMBIGUOUS, `${shown} is the prefix of ${rows.length} tokens: name one by id (${ids.join(', ')})`, { prefix: shown, ids });
  }
  return rows[0]!.id;
}

/**
 * Revokes the workspace's token `tokenId` (its browser sessions end with it). A token revoked
 * already stays as it was.
 * @returns the token as listed, when it was revoked, and whether that was before this call
 */
export async function revokeWorkspaceToken(sql: SqlRunner, workspaceId: string, tokenId: string): Promise<{ token: AdminTokenListing; revokedAt: Date; already: boolean }> {
  const rows = await sql.$queryRawUnsafe<Array<TokenRow & { revokedNow: Date | null; already: boolean }>>(
    `WITH done AS (UPDATE api_tokens SET revoked_at = now() WHERE id = $1::uuid AND workspace_id = $2::uuid AND revoked_at IS NULL RETURNING revoked_at)
     SELECT ${TOKEN_INFO_COLUMNS}, t.user_id::text AS "userId", u.name AS "userName",
            (SELECT revoked_at FROM done) AS "revokedNow", NOT EXISTS (SELECT 1 FROM done) AS already
       FROM api_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.id = $1::uuid AND t.workspace_id = $2::uuid`,
    tokenId,
    workspaceId,
  );
  const row = rows[0];
  if (!row) throw new AppError(ErrorCode.TOKEN_NOT_FOUND, `no token ${tokenId} in this workspace`, { id: tokenId });
  // The statement's snapshot predates its own UPDATE: a token revoked now is read from the UPDATE's RETURNING.
  const revokedAt = row.revokedNow ?? row.revokedAt!;
  return { token: { ...toListing(row), revokedAt: revokedAt.toISOString() }, revokedAt, already: row.already };
}
