import type { Member, Role } from '@switchyard/contracts';
import { Prisma, recordFacts, type PrismaClient } from '@switchyard/db';
import type { MemberChanged, MemberChangeRefusal, MemberStore } from '../member-ports';
import type { FactsOf } from '../fact-ports';

interface MemberRow {
  user_id: string;
  name: string;
  role: Role;
  created_at: Date;
}

type Refused = { ok: false; reason: MemberChangeRefusal };

/**
 * The workspace's members row-locked for a change: the admins and the member
 * changed, in one statement, so that two admins demoting each other at once
 * cannot both succeed and leave the workspace with none.
 */
async function lockedMembers(tx: Prisma.TransactionClient, workspaceId: string, userId: string): Promise<{ member: MemberRow | undefined; admins: number }> {
  const rows = await tx.$queryRaw<MemberRow[]>`
    SELECT m.user_id::text AS user_id, u.name, m.role::text AS role, m.created_at
      FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.workspace_id = ${workspaceId}::uuid AND (m.role = 'admin' OR m.user_id = ${userId}::uuid)
     ORDER BY m.user_id
       FOR UPDATE OF m`;
  return { member: rows.find((row) => row.user_id === userId), admins: rows.filter((row) => row.role === 'admin').length };
}

/** Members on PostgreSQL (decision 0042). */
export class PrismaMemberStore implements MemberStore {
  constructor(private readonly prisma: PrismaClient) {}

  async list(workspaceId: string): Promise<Member[]> {
    const rows = await this.prisma.$queryRaw<MemberRow[]>`
      SELECT m.user_id::text AS user_id, u.name, m.role::text AS role, m.created_at
        FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.workspace_id = ${workspaceId}::uuid
       ORDER BY m.created_at, m.user_id`;
    return rows.map((row) => ({ userId: row.user_id, name: row.name, role: row.role, joinedAt: row.created_at.toISOString() }));
  }

  async changeRole(workspaceId: string, userId: string, role: Role, facts: FactsOf<MemberChanged & { changed: boolean }>): Promise<{ ok: true; changed: MemberChanged } | Refused> {
    return this.prisma.$transaction(async (tx) => {
      const { member, admins } = await lockedMembers(tx, workspaceId, userId);
      if (!member) return { ok: false, reason: 'not_found' } as const;
      if (member.role === 'admin' && role !== 'admin' && admins <= 1) return { ok: false, reason: 'last_admin' } as const;
      const changed: MemberChanged = { member: { userId, name: member.name, role, previousRole: member.role }, revokedTokenIds: [] };
      if (member.role === role) return { ok: true, changed } as const;
      await tx.$executeRaw`UPDATE memberships SET role = ${role}::"Role" WHERE workspace_id = ${workspaceId}::uuid AND user_id = ${userId}::uuid`;
      await recordFacts(tx, facts({ ...changed, changed: true }));
      return { ok: true, changed } as const;
    });
  }

  async remove(workspaceId: string, userId: string, facts: FactsOf<MemberChanged>): Promise<{ ok: true; changed: MemberChanged } | Refused> {
    return this.prisma.$transaction(async (tx) => {
      const { member, admins } = await lockedMembers(tx, workspaceId, userId);
      if (!member) return { ok: false, reason: 'not_found' } as const;
      if (member.role === 'admin' && admins <= 1) return { ok: false, reason: 'last_admin' } as const;
      await tx.$executeRaw`DELETE FROM memberships WHERE workspace_id = ${workspaceId}::uuid AND user_id = ${userId}::uuid`;
      // Revoking the tokens ends the UI sessions opened with them (a session is looked up with its token).
      const revoked = await tx.$queryRaw<Array<{ id: string }>>`
        UPDATE api_tokens SET revoked_at = now()
         WHERE workspace_id = ${workspaceId}::uuid AND user_id = ${userId}::uuid AND revoked_at IS NULL
        RETURNING id::text AS id`;
      await tx.$executeRaw`DELETE FROM mattermost_links WHERE workspace_id = ${workspaceId}::uuid AND user_id = ${userId}::uuid`;
      // Their unused sign-in links, and the invitations they made: an invitation speaks for its maker.
      await tx.$executeRaw`
        DELETE FROM access_links
         WHERE workspace_id = ${workspaceId}::uuid AND used_at IS NULL AND (user_id = ${userId}::uuid OR created_by = ${userId}::uuid)`;
      const changed: MemberChanged = { member: { userId, name: member.name, role: member.role }, revokedTokenIds: revoked.map((row) => row.id) };
      await recordFacts(tx, facts(changed));
      return { ok: true, changed } as const;
    });
  }
}
