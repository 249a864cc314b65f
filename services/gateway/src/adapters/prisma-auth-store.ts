import type { TokenInfo } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import { tokenInfoFromRow as toInfo, type PrismaClient } from '@switchyard/db';
import type { AuthStore, NewToken, Principal } from '../ports';

/** Tokens, users and workspaces on PostgreSQL. Every query is scoped by workspace id. */
export class PrismaAuthStore implements AuthStore {
  constructor(private readonly prisma: PrismaClient) {}

  async findActiveToken(hash: string): Promise<Principal | null> {
    const row = await this.prisma.apiToken.findUnique({ where: { hash }, include: { workspace: true } });
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
    const principal: Principal = { tokenId: row.id, userId: row.userId, workspaceId: row.workspaceId, workspaceSlug: row.workspace.slug, role: row.role };
    if (row.expiresAt) principal.expiresAt = row.expiresAt.toISOString();
    return principal;
  }

  async touchToken(tokenId: string): Promise<void> {
    await this.prisma.apiToken.update({ where: { id: tokenId }, data: { lastUsedAt: new Date() } });
  }

  async listTokens(workspaceId: string): Promise<TokenInfo[]> {
    const rows = await this.prisma.apiToken.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' } });
    return rows.map(toInfo);
  }

  async createToken(input: NewToken): Promise<{ info: TokenInfo; secret: string }> {
    const secret = newTokenSecret();
    const row = await this.prisma.apiToken.create({
      data: { id: newId(), ...input, prefix: tokenPrefix(secret), hash: hashToken(secret) },
    });
    return { info: toInfo(row), secret };
  }

  async revokeToken(workspaceId: string, tokenId: string): Promise<boolean> {
    const result = await this.prisma.apiToken.updateMany({
      where: { id: tokenId, workspaceId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (result.count > 0) return true;
    // Already revoked counts as done; unknown (or another workspace's) is not found.
    return (await this.prisma.apiToken.count({ where: { id: tokenId, workspaceId } })) > 0;
  }
}
