import { AppError, ErrorCode, MEMBER_FACT_KINDS, type Member, type Role } from '@switchyard/contracts';
import { memberFact } from '@switchyard/core';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import type { MemberChangeRefusal, MemberStore } from '../member-ports';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';

/** What the member commands need. */
export interface MemberCommandDeps {
  members: MemberStore;
  /** Relays `member.*` facts before the answer (the audit trail reads them at once). */
  outbox: FactFlusher;
  /** Names the person on the facts' actor. */
  userName: UserNameLookup;
  /** Drops a person's cached tokens from this replica at once (others see the change within TOKEN_CACHE_MS). */
  forgetUser: (userId: string) => void;
}

function refused(reason: MemberChangeRefusal, userId: string): AppError {
  return reason === 'not_found'
    ? new AppError(ErrorCode.MEMBER_NOT_FOUND, 'no such member in this workspace', { userId })
    : new AppError(ErrorCode.LAST_ADMIN, 'the workspace would have no admin left: make another member admin first', { userId });
}

/** A member as the API shows them, after a change. */
async function memberNow(deps: MemberCommandDeps, principal: Principal, userId: string): Promise<Member> {
  const member = (await deps.members.list(principal.workspaceId)).find((m) => m.userId === userId);
  if (!member) throw new AppError(ErrorCode.MEMBER_NOT_FOUND, 'no such member in this workspace', { userId });
  return member;
}

/**
 * Sets a member's role (admins only, checked by the route), recording
 * `member.role_changed` when it changes. Their tokens and sessions act with
 * the new role at once where it is lower (a credential never acts above its
 * person's role now). LAST_ADMIN when the last admin would be demoted.
 */
export async function changeMemberRole(deps: MemberCommandDeps, principal: Principal, userId: string, role: Role, correlationId: string): Promise<Member> {
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const result = await deps.members.changeRole(principal.workspaceId, userId, role, ({ member }) => facts.record(memberFact(author, MEMBER_FACT_KINDS.roleChanged, member)));
  if (!result.ok) throw refused(result.reason, userId);
  deps.forgetUser(userId);
  await deps.outbox.flush(facts.ids);
  return memberNow(deps, principal, userId);
}

/**
 * Removes a member (admins only): their membership, API tokens, UI sessions
 * and Mattermost links, recording `member.removed`. An open event stream of
 * theirs closes within STREAM_AUTH_RECHECK_MS. LAST_ADMIN for the last admin.
 */
export async function removeMember(deps: MemberCommandDeps, principal: Principal, userId: string, correlationId: string): Promise<void> {
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const result = await deps.members.remove(principal.workspaceId, userId, ({ member }) => facts.record(memberFact(author, MEMBER_FACT_KINDS.removed, member)));
  if (!result.ok) throw refused(result.reason, userId);
  deps.forgetUser(userId);
  await deps.outbox.flush(facts.ids);
}
