import { SIGN_IN_LINK_PATH } from '@switchyard/contracts';
import { accessLinkUrl } from '@switchyard/core';
import { createSignInLink, createWorkspace, type SqlRunner } from '@switchyard/db';
import { type AdminWorkspace, tokenOwner } from './workspace-members';

/** The workspace `npm start` makes on a database that has none, so that its banner has someone to sign in. */
export const FIRST_WORKSPACE = 'default';

/** A sign-in link minted: its URL (shown once), whose it is and until when. */
export interface MintedSignInLink {
  url: string;
  member: { userId: string; name: string; role: string };
  expiresAt: Date;
}

/**
 * A one-time sign-in link for a member of `workspace` (`userId`, else its first admin), under
 * `baseUrl` (PUBLIC_URL, else the gateway's own URL). The browser session it opens acts with
 * the member's role.
 * @throws AppError MEMBER_NOT_FOUND (not a member; no admin)
 */
export async function mintSignInLink(sql: SqlRunner, workspace: AdminWorkspace, baseUrl: string, userId?: string): Promise<MintedSignInLink> {
  // Which role is asked for does not matter here: the link acts with the member's own.
  const member = await tokenOwner(sql, workspace, 'viewer', userId);
  const link = await createSignInLink(sql, { workspaceId: workspace.id, userId: member.userId, role: member.role });
  return { url: accessLinkUrl(baseUrl, SIGN_IN_LINK_PATH, link.secret), member, expiresAt: link.expiresAt };
}

/**
 * The workspace whose first admin `npm start`'s banner signs in: the oldest, or FIRST_WORKSPACE
 * made now when the database holds none (a fresh clone), so a newcomer never pastes a token.
 */
export async function firstWorkspace(sql: SqlRunner): Promise<AdminWorkspace & { created: boolean }> {
  const [oldest] = await sql.$queryRawUnsafe<AdminWorkspace[]>('SELECT id::text AS id, slug FROM workspaces ORDER BY created_at, id LIMIT 1');
  if (oldest) return { ...oldest, created: false };
  const made = await createWorkspace(sql, FIRST_WORKSPACE);
  return { id: made.workspaceId, slug: FIRST_WORKSPACE, created: true };
}
