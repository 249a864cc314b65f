import type { Member, MemberFactPayload, Role } from '@switchyard/contracts';
import type { FactsOf } from './fact-ports';

/** Why a change of a member was refused. */
export type MemberChangeRefusal = 'not_found' | 'last_admin';

/** A member changed: who they are now (removed: as they were) and what the change revoked. */
export interface MemberChanged {
  member: MemberFactPayload;
  /** Ids of the API tokens the change revoked (removal): for this replica's cache to forget them. */
  revokedTokenIds: string[];
}

/** The workspace's members on PostgreSQL (decision 0042). Every query is scoped by workspace id. */
export interface MemberStore {
  /** Members oldest first. */
  list(workspaceId: string): Promise<Member[]>;
  /**
   * Sets a member's role, with the facts `facts` gives in its transaction (none when the
   * role is unchanged). Refused when it would leave the workspace without an admin.
   */
  changeRole(workspaceId: string, userId: string, role: Role, facts: FactsOf<MemberChanged & { changed: boolean }>): Promise<{ ok: true; changed: MemberChanged } | { ok: false; reason: MemberChangeRefusal }>;
  /**
   * Removes a member: the membership, their API tokens (revoked, which ends their UI
   * sessions) and their Mattermost links in the workspace, with the facts in the same
   * transaction. Refused for the last admin.
   */
  remove(workspaceId: string, userId: string, facts: FactsOf<MemberChanged>): Promise<{ ok: true; changed: MemberChanged } | { ok: false; reason: MemberChangeRefusal }>;
}
