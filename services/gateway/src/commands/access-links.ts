import {
  AppError,
  ErrorCode,
  INVITATION_TTL_SECONDS,
  JOIN_PATH,
  MEMBER_FACT_KINDS,
  TOKEN_FACT_KINDS,
  type AcceptInvitationRequest,
  type CreateInvitationRequest,
  type Invitation,
  type JoinedResponse,
} from '@switchyard/contracts';
import { accessLinkUrl, hashToken, memberFact, memberInvitedFact, newAccessLinkSecret, newId, tokenFact, type ChangeAuthor } from '@switchyard/core';
import type { AccessLinkRefused, AccessLinkStore, AccessLinkUsed } from '../access-link-ports';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import { newSessionSecret } from '../http/ui-session-cookie';
import type { Principal, UiSessionStore } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import { uiSessionResponse } from './open-ui-session';

/** What the one-time link commands need. */
export interface AccessLinkDeps {
  links: AccessLinkStore;
  sessions: UiSessionStore;
  outbox: FactFlusher;
  userName: UserNameLookup;
  /** UI_SESSION_TTL_SECONDS: how long the browser session opened by a link lasts. */
  sessionTtlSeconds: number;
}

function refused(result: AccessLinkRefused): AppError {
  if (result.reason === 'used') return new AppError(ErrorCode.INVITATION_USED, 'this link was already used: ask for a new one', { usedAt: result.at?.toISOString() });
  if (result.reason === 'expired') return new AppError(ErrorCode.INVITATION_EXPIRED, 'this link has expired (links last 24 hours): ask for a new one', { expiredAt: result.at?.toISOString() });
  return new AppError(ErrorCode.INVITATION_NOT_FOUND, 'no such link: check it was copied whole');
}

/**
 * An admin's invitation: a one-time link valid INVITATION_TTL_SECONDS, its
 * secret returned once in the URL (only its hash is kept), `member.invited`
 * recorded with it.
 */
export async function inviteMember(deps: AccessLinkDeps, principal: Principal, body: CreateInvitationRequest, baseUrl: string, correlationId: string): Promise<Invitation> {
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const secret = newAccessLinkSecret();
  const expiresAt = new Date(Date.now() + INVITATION_TTL_SECONDS * 1000);
  const id = newId();
  await deps.links.createInvitation(
    { id, workspaceId: principal.workspaceId, hash: hashToken(secret), role: body.role, createdBy: principal.userId, expiresAt },
    () => facts.record(memberInvitedFact(author, { invitationId: id, role: body.role, expiresAt: expiresAt.toISOString() })),
  );
  await deps.outbox.flush(facts.ids);
  return { id, role: body.role, url: accessLinkUrl(baseUrl, JOIN_PATH, secret), expiresAt: expiresAt.toISOString() };
}

/** A browser session opened on a link's token: the cookie's secret and what the page is told. */
export interface JoinedSession {
  secret: string;
  expiresAt: Date;
  response: JoinedResponse;
}

/** The author of what a link's use (or a single sign-on) records: the person it made or signed in. */
export function selfAuthor(used: AccessLinkUsed): ChangeAuthor {
  return { workspaceId: used.workspace.id, workspaceSlug: used.workspace.slug, actor: { type: 'member', id: used.member.userId, name: used.member.name.slice(0, 256) } };
}

/** Opens a browser session on the token a link (or a single sign-on) made, with what the page is told. */
export async function openJoinedSession(deps: Pick<AccessLinkDeps, 'sessions'>, used: AccessLinkUsed, expiresAt: Date): Promise<JoinedSession> {
  const secret = newSessionSecret();
  await deps.sessions.create({ hash: hashToken(secret), tokenId: used.token.info.id, expiresAt });
  const principal: Principal = {
    tokenId: used.token.info.id,
    userId: used.member.userId,
    userName: used.member.name,
    workspaceId: used.workspace.id,
    workspaceSlug: used.workspace.slug,
    role: used.token.info.role,
    expiresAt: expiresAt.toISOString(),
  };
  return { secret, expiresAt, response: { ...uiSessionResponse(secret, principal, expiresAt), token: used.token.secret, member: used.member } };
}

/**
 * Accepts an invitation: the invitee becomes a member with the role they
 * were invited with, named as they chose, with their own API token and a
 * browser session; `member.joined` is recorded, its actor the newcomer.
 * INVITATION_NOT_FOUND / INVITATION_USED / INVITATION_EXPIRED otherwise.
 */
export async function acceptInvitation(deps: AccessLinkDeps, body: AcceptInvitationRequest, correlationId: string): Promise<JoinedSession> {
  const facts = new ChangeFacts(correlationId);
  const now = new Date();
  const result = await deps.links.acceptInvitation(hashToken(body.token), body.name, now, (used) =>
    facts.record(memberFact(selfAuthor(used), MEMBER_FACT_KINDS.joined, { userId: used.member.userId, name: used.member.name, role: used.member.role, invitationId: used.linkId })),
  );
  if (!result.ok) throw refused(result);
  await deps.outbox.flush(facts.ids);
  return openJoinedSession(deps, result.used, new Date(now.getTime() + deps.sessionTtlSeconds * 1000));
}

/** `token.created` for the token a sign-in made for a browser session, by the person signed in. */
export function sessionTokenFact(used: AccessLinkUsed) {
  const { info } = used.token;
  return tokenFact(selfAuthor(used), TOKEN_FACT_KINDS.created, { id: info.id, name: info.name, role: info.role, prefix: info.prefix, expiresAt: info.expiresAt, userId: used.member.userId });
}

/**
 * Redeems a one-time sign-in link (`npm start`'s banner, `npm run admin --
 * sign-in-link`): a token of its member that lives as long as the browser
 * session it opens, recorded as `token.created` by that member.
 */
export async function redeemSignInLink(deps: AccessLinkDeps, token: string, correlationId: string): Promise<JoinedSession> {
  const facts = new ChangeFacts(correlationId);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlSeconds * 1000);
  const result = await deps.links.redeemSignIn(hashToken(token), now, expiresAt, (used) => facts.record(sessionTokenFact(used)));
  if (!result.ok) throw refused(result);
  await deps.outbox.flush(facts.ids);
  return openJoinedSession(deps, result.used, expiresAt);
}
