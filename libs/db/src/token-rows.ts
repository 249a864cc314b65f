import type { Role, TokenInfo } from '@switchyard/contracts';

/** An API token's columns as a listing reads them (Prisma's `ApiToken` has these fields too). */
export interface TokenInfoRow {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

/** The SELECT list of TokenInfoRow over `api_tokens` aliased `t`, for raw SQL. */
export const TOKEN_INFO_COLUMNS = `t.id::text AS id, t.name, t.role::text AS role, t.prefix, t.created_at AS "createdAt",
  t.last_used_at AS "lastUsedAt", t.revoked_at AS "revokedAt", t.expires_at AS "expiresAt"`;

/** A token as the API lists it (never its secret or hash). */
export function tokenInfoFromRow(row: TokenInfoRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}
