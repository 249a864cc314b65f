import type { Role, TokenFactPayload, TokenInfo } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import { recordFacts, tokenInfoFromRow as toInfo, type PrismaClient, type TokenInfoRow } from '@switchyard/db';
import type { AuthStore, NewToken, Principal } from '../auth-ports';
import type { FactsOf } from '../fact-ports';
import { lowerRole } from '../roles';

interface ActiveTokenRow {
  id: string;
  user_id: string;
  workspace_id: string;
  slug: string;
  token_role: Role;
  member_role: Role;
  name: string;
  expires_at: Date | null;
}

/** What `token.*` facts say of a token: never its secret or hash. */
function factPayloadOf(row: TokenInfoRow & { userId: string }): TokenFactPayload {
  return { id: row.id, name: row.name, role: row.role, prefix: row.prefix, expiresAt: row.expiresAt?.toISOString() ?? null, userId: row.userId };
}

/** Tokens, users and workspaces on PostgreSQL. Every query is scoped by workspace id. */
export class PrismaAuthStore implements AuthStore {
  constructor(private readonly prisma: PrismaClient) {}

  async findActiveToken(hash: string): Promise<Principal | null> {
    // The membership decides too (decision 0042): a removed person's token is refused even
    // before its revocation is seen, and a token never acts above its person's role now.
    const [row] = await this.prisma.$queryRaw<ActiveTokenRow[]>`
      SELECT t.id::text AS id, t.user_id::text AS user_id, t.workspace_id::text AS workspace_id, w.slug,
             t.role::text AS token_role, m.role::text AS member_role, u.name, t.expires_at
        FROM api_tokens t
        JOIN workspaces w ON w.id = t.workspace_id
        JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
        JOIN users u ON u.id = t.user_id
       WHERE t.hash = ${hash} AND t.revoked_at IS NULL`;
    if (!row || (row.expires_at && row.expires_at.getTime() <= Date.now())) return null;
    const principal: Principal = {
      tokenId: row.id,
      userId: row.user_id,
      userName: row.name,
      workspaceId: row.workspace_id,
      workspaceSlug: row.slug,
      role: lowerRole(row.token_role, row.member_role),
    };
    if (row.expires_at) principal.expiresAt = row.expires_at.toISOString();
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
