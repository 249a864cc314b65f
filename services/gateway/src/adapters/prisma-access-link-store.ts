import type { Role } from '@switchyard/contracts';
import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import { Prisma, recordFacts, tokenInfoFromRow, type PrismaClient } from '@switchyard/db';
import type { AccessLinkRefused, AccessLinkStore, AccessLinkUsed } from '../access-link-ports';
import type { FactsOf } from '../fact-ports';
import { lowerRole } from '../roles';

interface LinkRow {
  id: string;
  workspace_id: string;
  slug: string;
  purpose: 'invitation' | 'sign_in';
  role: Role;
  user_id: string | null;
  expires_at: Date;
  used_at: Date | null;
}

/** The link of a secret's hash, row-locked until the transaction ends: a link is used once. */
async function lockedLink(tx: Prisma.TransactionClient, hash: string, purpose: LinkRow['purpose']): Promise<LinkRow | undefined> {
  const [row] = await tx.$queryRaw<LinkRow[]>`
    SELECT l.id::text AS id, l.workspace_id::text AS workspace_id, w.slug, l.purpose::text AS purpose, l.role::text AS role,
           l.user_id::text AS user_id, l.expires_at, l.used_at
      FROM access_links l JOIN workspaces w ON w.id = l.workspace_id
     WHERE l.hash = ${hash} AND l.purpose = ${purpose}::"AccessLinkPurpose"
       FOR UPDATE OF l`;
  return row;
}

/** Why a link found (or not) cannot be used now; null when it can. */
function refusal(link: LinkRow | undefined, now: Date): AccessLinkRefused | null {
  if (!link) return { ok: false, reason: 'not_found' };
  if (link.used_at) return { ok: false, reason: 'used', at: link.used_at };
  if (link.expires_at.getTime() <= now.getTime()) return { ok: false, reason: 'expired', at: link.expires_at };
  return null;
}

/** One-time links on PostgreSQL (decision 0042). */
export class PrismaAccessLinkStore implements AccessLinkStore {
  constructor(private readonly prisma: PrismaClient) {}

  async createInvitation(input: { id: string; workspaceId: string; hash: string; role: Role; createdBy: string; expiresAt: Date }, facts: FactsOf<{ id: string }>): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.accessLink.create({ data: { ...input, purpose: 'invitation' } });
      await recordFacts(tx, facts({ id: input.id }));
    });
  }

  async acceptInvitation(hash: string, name: string, now: Date, facts: FactsOf<AccessLinkUsed>): Promise<{ ok: true; used: AccessLinkUsed } | AccessLinkRefused> {
    return this.prisma.$transaction(async (tx) => {
      const link = await lockedLink(tx, hash, 'invitation');
      const refused = refusal(link, now);
      if (refused || !link) return refused!;
      const userId = newId();
      await tx.user.create({ data: { id: userId, name } });
      const membership = await tx.membership.create({ data: { workspaceId: link.workspace_id, userId, role: link.role } });
      const token = await this.newToken(tx, link.workspace_id, userId, link.role, 'joined by invitation', null);
      await tx.accessLink.update({ where: { id: link.id }, data: { usedAt: now, userId } });
      const used: AccessLinkUsed = {
        workspace: { id: link.workspace_id, slug: link.slug },
        member: { userId, name, role: link.role, joinedAt: membership.createdAt.toISOString() },
        token,
        linkId: link.id,
      };
      await recordFacts(tx, facts(used));
      return { ok: true, used } as const;
    });
  }

  async redeemSignIn(hash: string, now: Date, tokenExpiresAt: Date, facts: FactsOf<AccessLinkUsed>): Promise<{ ok: true; used: AccessLinkUsed } | AccessLinkRefused> {
    return this.prisma.$transaction(async (tx) => {
      const link = await lockedLink(tx, hash, 'sign_in');
      const refused = refusal(link, now);
      if (refused || !link) return refused!;
      const membership = link.user_id
        ? await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: link.workspace_id, userId: link.user_id } }, include: { user: true } })
        : null;
      // A person removed since the link was made: it leads nowhere.
      if (!membership) return { ok: false, reason: 'not_found' } as const;
      const role = lowerRole(link.role, membership.role);
      const token = await this.newToken(tx, link.workspace_id, membership.userId, role, 'web sign-in link', tokenExpiresAt);
      await tx.accessLink.update({ where: { id: link.id }, data: { usedAt: now } });
      const used: AccessLinkUsed = {
        workspace: { id: link.workspace_id, slug: link.slug },
        member: { userId: membership.userId, name: membership.user.name, role: membership.role, joinedAt: membership.createdAt.toISOString() },
        token,
        linkId: link.id,
      };
      await recordFacts(tx, facts(used));
      return { ok: true, used } as const;
    });
  }

  private async newToken(tx: Prisma.TransactionClient, workspaceId: string, userId: string, role: Role, name: string, expiresAt: Date | null): Promise<AccessLinkUsed['token']> {
    const secret = newTokenSecret();
    const row = await tx.apiToken.create({ data: { id: newId(), workspaceId, userId, name, role, prefix: tokenPrefix(secret), hash: hashToken(secret), expiresAt } });
    return { info: tokenInfoFromRow(row), secret };
  }
}
