import { Router, type RequestHandler } from 'express';
import { AppError, CreateUiSessionRequestSchema, ErrorCode } from '@switchyard/contracts';
import { hashToken } from '@switchyard/core';
import { openUiSession, uiSessionResponse } from '../commands/open-ui-session';
import { principalOf, type Authenticator } from '../http/auth';
import { jsonBody } from '../http/json-body';
import { checkCsrf, clearSessionCookie, sessionCookieOf, setSessionCookie } from '../http/ui-session-cookie';
import { parseBody } from '../http/validate';
import type { UiSessionStore } from '../auth-ports';

/** What the session exchange needs. */
export interface UiSessionRoutesDeps {
  authenticator: Authenticator;
  uiSessions: UiSessionStore;
  /** UI_SESSION_TTL_SECONDS: how long a session lives (never past its token's expiry). */
  ttlSeconds: number;
  bodyLimitBytes: number;
}

/**
 * The web UI's sign-in (decision 0029), the one endpoint the UI has that
 * others do not use: `POST /v1/session` exchanges a pasted API token for an
 * HttpOnly, SameSite=Strict cookie; `GET` tells the page its CSRF token and
 * who it is; `DELETE` signs out. Everything else the UI does goes through the
 * same REST API and stream, authenticated by the cookie.
 */
export function uiSessionRoutes(deps: UiSessionRoutesDeps): Router {
  const router = Router();
  // jsonBody insists on application/json: a cross-site form cannot post one, so no login CSRF.
  router.post('/v1/session', ...jsonBody({ limitBytes: deps.bodyLimitBytes }), async (req, res) => {
    const { token } = parseBody(CreateUiSessionRequestSchema, req);
    const opened = await openUiSession({ authenticator: deps.authenticator, sessions: deps.uiSessions }, token, deps.ttlSeconds);
    setSessionCookie(req, res, opened.secret, opened.expiresAt);
    res.setHeader('cache-control', 'no-store');
    res.status(201).json(opened.response);
  });

  router.get('/v1/session', sessionOnly(deps.authenticator), (req, res) => {
    const principal = principalOf(res);
    res.setHeader('cache-control', 'no-store');
    res.json(uiSessionResponse(sessionCookieOf(req)!, principal, new Date(principal.expiresAt!)));
  });

  router.delete('/v1/session', sessionOnly(deps.authenticator), async (req, res) => {
    await deps.uiSessions.revoke(hashToken(sessionCookieOf(req)!));
    clearSessionCookie(req, res);
    res.status(204).end();
  });
  return router;
}

/**
 * Authenticates by the session cookie alone (a bearer token has no session to
 * describe or end): 401 without a live session, 403 CSRF_TOKEN_INVALID for a
 * mutating request without its CSRF token.
 */
function sessionOnly(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const secret = sessionCookieOf(req);
    const principal = secret ? await authenticator.resolveSession(secret) : null;
    if (!secret || !principal) throw new AppError(ErrorCode.UNAUTHENTICATED, 'no live UI session: sign in again');
    checkCsrf(req, secret);
    res.locals.principal = principal;
    next();
  };
}
