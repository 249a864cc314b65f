import { INVITATION_TTL_SECONDS, type Role } from '@switchyard/contracts';
import { hashToken, newAccessLinkSecret, newId } from '@switchyard/core';
import type { SqlRunner } from './sql-pool';

/** A sign-in link made: its id, its secret (shown once, only the hash is kept) and its expiry. */
export interface CreatedSignInLink {
  id: string;
  secret: string;
  expiresAt: Date;
}

/**
 * A one-time sign-in link for a member (decision 0042), made by the operator (`npm start`'s
 * banner, `npm run admin -- sign-in-link`): valid INVITATION_TTL_SECONDS, used once; the
 * browser session it opens acts with at most `role` and the member's role then.
 */
export async function createSignInLink(sql: SqlRunner, input: { workspaceId: string; userId: string; role: Role }, now = new Date()): Promise<CreatedSignInLink> {
  const secret = newAccessLinkSecret();
  const id = newId();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_SECONDS * 1000);
  await sql.$executeRawUnsafe(
    `INSERT INTO access_links (id, workspace_id, purpose, hash, role, user_id, created_by, expires_at)
     VALUES ($1::uuid, $2::uuid, 'sign_in', $3, $4::"Role", $5::uuid, NULL, $6)`,
    id,
    input.workspaceId,
    hashToken(secret),
    input.role,
    input.userId,
    expiresAt,
  );
  return { id, secret, expiresAt };
}
