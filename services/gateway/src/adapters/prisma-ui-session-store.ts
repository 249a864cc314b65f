import { newId } from '@switchyard/core';
import type { PrismaClient } from '@switchyard/db';
import type { Principal, UiSessionStore } from '../ports';

/** UI sessions on PostgreSQL, looked up with their token so that revoking the token ends them. */
export class PrismaUiSessionStore implements UiSessionStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(input: { hash: string; tokenId: string; expiresAt: Date }): Promise<void> {
    await this.prisma.uiSession.create({ data: { id: newId(), ...input } });
  }

  async findActive(hash: string): Promise<Principal | null> {
    const row = await this.prisma.uiSession.findUnique({ where: { hash }, include: { token: { include: { workspace: true } } } });
    const now = Date.now();
    if (!row || row.revokedAt || row.expiresAt.getTime() <= now) return null;
    const token = row.token;
    if (token.revokedAt || (token.expiresAt && token.expiresAt.getTime() <= now)) return null;
    const expiresAt = token.expiresAt && token.expiresAt < row.expiresAt ? token.expiresAt : row.expiresAt;
    return {
      tokenId: token.id,
      userId: token.userId,
      workspaceId: token.workspaceId,
      workspaceSlug: token.workspace.slug,
      role: token.role,
      expiresAt: expiresAt.toISOString(),
    };
  }

  async revoke(hash: string): Promise<void> {
    await this.prisma.uiSession.updateMany({ where: { hash, revokedAt: null }, data: { revokedAt: new Date() } });
  }
}
