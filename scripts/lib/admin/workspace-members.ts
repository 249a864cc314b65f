import { AppError, ErrorCode, type Role } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';

/** A workspace as the operator's CLI names it. */
export interface AdminWorkspace {
  id: string;
  slug: string;
}

/** A member of a workspace: the person (user id, name) and their role. */
export interface AdminMember {
  userId: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

/** How much each role may do: a token never acts with more than its person's role. */
const ROLE_RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };

/** Most workspace names an unknown-workspace message lists. */
const LISTED_WORKSPACES = 20;

/**
 * The workspace named `slug`.
 * @throws AppError WORKSPACE_NOT_FOUND, naming the workspaces there are
 */
export async function findWorkspace(sql: SqlRunner, slug: string): Promise<AdminWorkspace> {
  const rows = await sql.$queryRawUnsafe<AdminWorkspace[]>('SELECT id::text AS id, slug FROM workspaces WHERE slug = $1', slug);
  if (rows[0]) return rows[0];
  const known = await sql.$queryRawUnsafe<Array<{ slug: string }>>('SELECT slug FROM workspaces ORDER BY slug LIMIT $1', LISTED_WORKSPACES + 1);
  const names = known.slice(0, LISTED_WORKSPACES).map((row) => row.slug);
  const there = names.length === 0 ? 'there is none yet (create-workspace NAME makes one)' : `there are: ${names.join(', ')}${known.length > LISTED_WORKSPACES ? ', …' : ''}`;
  throw new AppError(ErrorCode.WORKSPACE_NOT_FOUND, `no workspace named ${slug}; ${there}`, { slug });
}

/** The workspace's members, oldest first (the first admin is the one who created it). */
export async function listMembers(sql: SqlRunner, workspaceId: string): Promise<AdminMember[]> {
  return sql.$queryRawUnsafe<AdminMember[]>(
    `SELECT m.user_id::text AS "userId", u.name, m.role::text AS role, m.created_at AS "joinedAt"
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = $1::uuid
      ORDER BY m.created_at, m.user_id`,
    workspaceId,
  );
}

/**
 * The member a new token acts as: `userId` when given, else the workspace's first admin. The
 * token's role may not exceed that member's: a token never grants a person more than they have.
 * @throws AppError MEMBER_NOT_FOUND (not a member; no admin), FORBIDDEN (role above the member's)
 */
export async function tokenOwner(sql: SqlRunner, workspace: AdminWorkspace, role: Role, userId?: string): Promise<AdminMember> {
  const members = await listMembers(sql, workspace.id);
  const member = userId === undefined ? members.find((m) => m.role === 'admin') : members.find((m) => m.userId === userId);
  if (!member) {
    const why = userId === undefined ? `workspace ${workspace.slug} has no admin: name a member with --user (list-members shows them)` : `user ${userId} is not a member of workspace ${workspace.slug} (list-members shows its members)`;
    throw new AppError(ErrorCode.MEMBER_NOT_FOUND, why, { workspace: workspace.slug, ...(userId ? { userId } : {}) });
  }
  if (ROLE_RANK[role] > ROLE_RANK[member.role]) {
    throw new AppError(ErrorCode.FORBIDDEN, `${member.name} (${member.userId}) is ${member.role === 'admin' ? 'an' : 'a'} ${member.role} of ${workspace.slug}: a token of theirs can be ${member.role} at most`, {
      required: role,
      actual: member.role,
    });
  }
  return member;
}
