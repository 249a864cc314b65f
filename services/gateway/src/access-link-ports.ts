import type { Member, Role, TokenInfo } from '@switchyard/contracts';
import type { FactsOf } from './fact-ports';

/** Why a one-time link was refused. */
export type AccessLinkRefusal = 'not_found' | 'used' | 'expired';

/** A link used: the member it made or signed in, and the API token made for them. */
export interface AccessLinkUsed {
  workspace: { id: string; slug: string };
  member: Member;
  token: { info: TokenInfo; secret: string };
  /** The link's id (an invitation's, for `member.joined`). */
  linkId: string;
}

/** Refused, with when it was used or expired. */
export type AccessLinkRefused = { ok: false; reason: AccessLinkRefusal; at?: Date };

/** One-time links (invitations, sign-in links) on PostgreSQL (decision 0042). Only a secret's SHA-256 is stored. */
export interface AccessLinkStore {
  /** Records an invitation of `role` made by `createdBy`, with the facts `facts` gives in its transaction. */
  createInvitation(input: { id: string; workspaceId: string; hash: string; role: Role; createdBy: string; expiresAt: Date }, facts: FactsOf<{ id: string }>): Promise<void>;
  /**
   * Uses an invitation (row-locked: two accepts of one link cannot both pass): a new user
   * named `name`, their membership with the invitation's role and their API token; the
   * link marked used, all with the facts in one transaction.
   */
  acceptInvitation(hash: string, name: string, now: Date, facts: FactsOf<AccessLinkUsed>): Promise<{ ok: true; used: AccessLinkUsed } | AccessLinkRefused>;
  /**
   * Uses a sign-in link: a new API token of its member (at most their role now, expiring
   * at `tokenExpiresAt`); refused as not found when they are no longer a member.
   */
  redeemSignIn(hash: string, now: Date, tokenExpiresAt: Date, facts: FactsOf<AccessLinkUsed>): Promise<{ ok: true; used: AccessLinkUsed } | AccessLinkRefused>;
}
