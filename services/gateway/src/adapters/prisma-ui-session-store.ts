import { newId } from '@switchyard/core';
import type { PrismaClient } from '@switchyard/db';
import type { Role } from '@switchyard/contracts';
import type { Principal, UiSessionStore } from '../auth-ports';
import { lowerRole } from '../roles';

interface SessionRow {
  token_id: string;
  user_id: string;
  workspace_id: string;
  slug: string;
  token_role: Role;
  member_role: Role;
  name: string;
  /** The earlier of the session's and its token's expiry (LEAST ignores a null). */
  expires_at: Date;
}

/** UI sessions on PostgreSQL, looked up with their token so that revoking the token ends them. */
export class PrismaUiSessionStore implements UiSessionStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(input: { hash: string; tokenId: string; expiresAt: Date }): Promise<void> {
    await this.prisma.uiSession.create({ data: { id: newId(), ...input } });
  }

  async findActive(hash: string): Promise<Principal | null> {
    // As a token's lookup (PrismaAuthStore): the membership must hold, and caps the role.
    const [row] = await this.prisma.$queryRaw<SessionRow[]>`
      SELECT t.id::text AS token_id, t.user_id::text AS user_id, t.workspace_id::text AS workspace_id, w.slug,
             t.role::text AS token_role, m.role::text AS member_role, u.name, LEAST(s.expires_at, t.expires_at) AS expires_at
        FROM ui_sessions s
        JOIN api_tokens t ON t.id = s.token_id
        JOIN workspaces w ON w.id = t.workspace_id
        JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
        JOIN users u ON u.id = t.user_id
       WHERE s.hash = ${hash} AND s.revoked_at IS NULL AND t.revoked_at IS NULL`;
    if (!row || row.expires_at.getTime() <= Date.now()) return null;
    return {
      tokenId: row.token_id,
      userId: row.user_id,
      userName: row.name,
      workspaceId: row.workspace_id,
      workspaceSlug: row.slug,
      role: lowerRole(row.token_role, row.member_role),
      expiresAt: row.expires_at.toISOString(),
    };
  }

  async revoke(hash: string): Promise<void> {
    await this.prisma.uiSession.updateMany({ where: { hash, revokedAt: null }, data: { revokedAt: new Date() } });
  }
}
