import { AppError, ErrorCode, MEMBER_FACT_KINDS, type Role, type SsoRoleMap } from '@switchyard/contracts';
import { memberFact, type ChangeAuthor } from '@switchyard/core';
import { ChangeFacts } from '../audited-change';
import type { UiSessionStore } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import { ROLE_RANK } from '../roles';
import type { SsoClient, SsoIdentityStore, SsoPendingStore, SsoSignedIn, SsoStart } from '../sso-ports';
import { openJoinedSession, selfAuthor, sessionTokenFact, type JoinedSession } from './access-links';

/** How long a sign-in begun may be finished: 10 minutes. */
export const SSO_PENDING_TTL_MS = 10 * 60_000;

/** What single sign-on needs (decision 0042). */
export interface SsoDeps {
  client: SsoClient;
  pending: SsoPendingStore;
  identities: SsoIdentityStore;
  sessions: UiSessionStore;
  outbox: FactFlusher;
  /** OIDC_WORKSPACE: the workspace people sign in to. */
  workspace: string;
  /** OIDC_ROLE_MAP. */
  roleMap: SsoRoleMap;
  /** UI_SESSION_TTL_SECONDS. */
  sessionTtlSeconds: number;
}

/** The highest role any of `groups` maps to; null when none maps. */
export function roleOfGroups(groups: readonly string[], map: SsoRoleMap): Role | null {
  let best: Role | null = null;
  for (const group of groups) {
    const role = Object.hasOwn(map, group) ? map[group] : undefined;
    if (role && (best === null || ROLE_RANK[role] > ROLE_RANK[best])) best = role;
  }
  return best;
}

/** Who a role set by the provider's groups is recorded as changed by. */
const SSO_AUTHOR = (signedIn: SsoSignedIn): ChangeAuthor => ({
  workspaceId: signedIn.workspace.id,
  workspaceSlug: signedIn.workspace.slug,
  actor: { type: 'system', id: 'sso', name: 'single sign-on (provider groups)' },
});

/** Begins a sign-in: the authorization request, remembered for SSO_PENDING_TTL_MS. */
export async function startSso(deps: SsoDeps, redirectUri: string): Promise<SsoStart> {
  const start = await deps.client.start(redirectUri);
  await deps.pending.put(start, SSO_PENDING_TTL_MS);
  return start;
}

/**
 * Finishes a sign-in at the provider's redirect: the state must be this browser's (its
 * cookie) and pending (once); the provider's answer is verified; the person's groups give
 * their role (SSO_NO_ROLE when none maps). The person is made a member on their first
 * sign-in (`member.joined`) and their role follows their groups at every sign-in
 * (`member.role_changed`, by single sign-on); a browser session is opened.
 */
export async function finishSso(
  deps: SsoDeps,
  input: { state: string; error?: string; callbackUrl: URL; browserState: string | undefined },
  correlationId: string,
): Promise<JoinedSession> {
  if (input.browserState !== input.state) throw new AppError(ErrorCode.SSO_STATE_INVALID, 'this sign-in was not begun in this browser: start again');
  const pending = await deps.pending.take(input.state);
  if (!pending) throw new AppError(ErrorCode.SSO_STATE_INVALID, 'this sign-in is unknown, used or older than 10 minutes: start again');
  if (input.error) throw new AppError(ErrorCode.SSO_REFUSED, 'the provider refused the sign-in', { error: input.error });
  const identity = await deps.client.finish(input.callbackUrl, pending);
  const role = roleOfGroups(identity.groups, deps.roleMap);
  if (!role) throw new AppError(ErrorCode.SSO_NO_ROLE, 'none of your groups is given a role in this workspace: ask its admin', { groups: identity.groups.slice(0, 50) });
  const facts = new ChangeFacts(correlationId);
  const expiresAt = new Date(Date.now() + deps.sessionTtlSeconds * 1000);
  const name = (identity.name ?? identity.subject).slice(0, 100);
  const signedIn = await deps.identities.signIn({ workspaceSlug: deps.workspace, identity, name, role, tokenExpiresAt: expiresAt }, (done) => {
    const member = { userId: done.member.userId, name: done.member.name, role: done.member.role };
    const changes = done.joined
      ? [memberFact(selfAuthor(done), MEMBER_FACT_KINDS.joined, member)]
      : done.previousRole !== done.member.role
        ? [memberFact(SSO_AUTHOR(done), MEMBER_FACT_KINDS.roleChanged, { ...member, previousRole: done.previousRole ?? undefined })]
        : [];
    return facts.record(...changes, sessionTokenFact(done));
  });
  if (!signedIn) throw new AppError(ErrorCode.SSO_NOT_CONFIGURED, `the workspace single sign-on signs in to (${deps.workspace}) does not exist`);
  await deps.outbox.flush(facts.ids);
  return openJoinedSession(deps, signedIn, expiresAt);
}
