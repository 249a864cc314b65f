import { hashToken, newId, newTokenSecret, tokenPrefix } from '@switchyard/core';
import { recordFacts, tokenInfoFromRow, type PrismaClient } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { SsoIdentity, SsoIdentityStore, SsoSignedIn } from '../sso-ports';
import type { Role } from '@switchyard/contracts';

/** People known by their provider's identity, on PostgreSQL (decision 0042). */
export class PrismaSsoIdentityStore implements SsoIdentityStore {
  constructor(private readonly prisma: PrismaClient) {}

  async signIn(
    input: { workspaceSlug: string; identity: SsoIdentity; name: string; role: Role; tokenExpiresAt: Date },
    facts: FactsOf<SsoSignedIn>,
  ): Promise<SsoSignedIn | null> {
    const { identity } = input;
    return this.prisma.$transaction(async (tx) => {
      const workspace = await tx.workspace.findUnique({ where: { slug: input.workspaceSlug }, select: { id: true, slug: true } });
      if (!workspace) return null;
      // Two first sign-ins of one person at once must make one user, not two (or a unique violation).
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`sso:${identity.issuer}:${identity.subject}`}, 0))::text`;
      const known = await tx.externalIdentity.findUnique({ where: { issuer_subject: { issuer: identity.issuer, subject: identity.subject } }, include: { user: true } });
      const user = known?.user ?? (await tx.user.create({ data: { id: newId(), name: input.name } }));
      if (!known) await tx.externalIdentity.create({ data: { issuer: identity.issuer, subject: identity.subject, userId: user.id } });
      const where = { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } };
      const before = await tx.membership.findUnique({ where });
      const membership = before
        ? before.role === input.role
          ? before
          : await tx.membership.update({ where, data: { role: input.role } })
        : await tx.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: input.role } });
      const secret = newTokenSecret();
      const token = await tx.apiToken.create({
        data: { id: newId(), workspaceId: workspace.id, userId: user.id, name: 'single sign-on', role: input.role, prefix: tokenPrefix(secret), hash: hashToken(secret), expiresAt: input.tokenExpiresAt },
      });
      const signedIn: SsoSignedIn = {
        workspace,
        member: { userId: user.id, name: user.name, role: membership.role, joinedAt: membership.createdAt.toISOString() },
        token: { info: tokenInfoFromRow(token), secret },
        linkId: newId(),
        joined: !before,
        previousRole: before?.role ?? null,
      };
      await recordFacts(tx, facts(signedIn));
      return signedIn;
    });
  }
}
