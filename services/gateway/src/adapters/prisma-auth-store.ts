import type { TokenFactPayload, TokenInfo } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import { recordFacts, tokenInfoFromRow as toInfo, type PrismaClient, type TokenInfoRow } from '@switchyard/db';
import type { AuthStore, FactsOf, NewToken, Principal } from '../ports';

/** What `token.*` facts say of a token: never its secret or hash. */
function factPayloadOf(row: TokenInfoRow & { userId: string }): TokenFactPayload {
  return { id: row.id, name: row.name, role: row.role, prefix: row.prefix, expiresAt: row.expiresAt?.toISOString() ?? null, userId: row.userId };
}

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

  async createToken(input: NewToken, facts: FactsOf<TokenFactPayload>): Promise<{ info: TokenInfo; secret: string }> {
    const secret = newTokenSecret();
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.apiToken.create({
        data: { id: newId(), ...input, prefix: tokenPrefix(secret), hash: hashToken(secret) },
      });
      await recordFacts(tx, facts(factPayloadOf(row)));
      return { info: toInfo(row), secret };
    });
  }

  async revokeToken(workspaceId: string, tokenId: string, facts: FactsOf<TokenFactPayload>): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const [revoked] = await tx.apiToken.updateManyAndReturn({
        where: { id: tokenId, workspaceId, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      if (revoked) {
        await recordFacts(tx, facts(factPayloadOf(revoked)));
        return true;
      }
      // Already revoked counts as done (and was recorded then); unknown (or another workspace's) is not found.
      return (await tx.apiToken.count({ where: { id: tokenId, workspaceId } })) > 0;
    });
  }
}
