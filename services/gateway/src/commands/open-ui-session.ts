import { AppError, ErrorCode, type UiSessionResponse } from '@switchyard/contracts';
import { hashToken } from '@switchyard/core';
import { credentialOf, type Authenticator } from '../http/auth';
import { csrfTokenOf, newSessionSecret } from '../http/ui-session-cookie';
import type { Principal, UiSessionStore } from '../auth-ports';
import { toWhoAmI } from '../routes/whoami';

/** A session opened: the cookie's secret (set once, never shown to scripts) and what the UI is told. */
export interface OpenedUiSession {
  secret: string;
  expiresAt: Date;
  response: UiSessionResponse;
}

/** What a session's response says, from its secret and principal. */
export function uiSessionResponse(secret: string, principal: Principal, expiresAt: Date): UiSessionResponse {
  return { csrfToken: csrfTokenOf(secret), expiresAt: expiresAt.toISOString(), whoami: toWhoAmI(principal) };
}

/**
 * Exchanges an API token for a UI session. The token is looked up in the store
 * (not the cache: a just-revoked token must not open a session). A run's agent
 * token never opens one: it lives for one run and a person signs in as themselves.
 * The session ends at the earlier of `ttlSeconds` from now and the token's expiry.
 */
export async function openUiSession(
  deps: { authenticator: Authenticator; sessions: UiSessionStore },
  token: string,
  ttlSeconds: number,
): Promise<OpenedUiSession> {
  const credential = credentialOf(token);
  if (credential.agent) throw new AppError(ErrorCode.FORBIDDEN, "a run's agent token cannot open a UI session", { required: 'api token', actual: 'agent token' });
  const principal = await deps.authenticator.recheck(credential);
  if (!principal) throw new AppError(ErrorCode.UNAUTHENTICATED, 'the token is unknown, revoked or expired');
  const tokenExpiry = principal.expiresAt === undefined ? Infinity : Date.parse(principal.expiresAt);
  const expiresAt = new Date(Math.min(Date.now() + ttlSeconds * 1000, tokenExpiry));
  const secret = newSessionSecret();
  await deps.sessions.create({ hash: hashToken(secret), tokenId: principal.tokenId, expiresAt });
  return { secret, expiresAt, response: uiSessionResponse(secret, { ...principal, expiresAt: expiresAt.toISOString() }, expiresAt) };
}
