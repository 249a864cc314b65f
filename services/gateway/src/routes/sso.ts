import { Router, type Request } from 'express';
import { AppError, ErrorCode, SsoCallbackQuerySchema, type SignInMethodsResponse } from '@switchyard/contracts';
import { finishSso, SSO_PENDING_TTL_MS, startSso, type SsoDeps } from '../commands/sso-sign-in';
import { cookieOf, isHttps, setSessionCookie } from '../http/ui-session-cookie';
import { parseQuery } from '../http/validate';

/** The cookie that binds a sign-in begun to the browser that began it. */
const STATE_COOKIE = 'sy_sso_state';
const LOGIN_PATH = '/v1/sso/login';
const CALLBACK_PATH = '/v1/sso/callback';

/** What the single sign-on routes need; `sso` null when it is not configured. */
export interface SsoRoutesDeps {
  sso: SsoDeps | null;
  /** PUBLIC_URL: the base of the redirect URI; unset, the gateway as the request reached it. */
  publicUrl: string | undefined;
}

/**
 * Single sign-on with OpenID Connect (decision 0042): `GET /v1/sign-in-methods` tells the UI
 * whether to offer it; `GET /v1/sso/login` sends the browser to the provider; the provider
 * sends it back to `GET /v1/sso/callback`, which opens the session and goes to the UI.
 */
export function ssoRoutes(deps: SsoRoutesDeps): Router {
  const router = Router();
  const baseUrlOf = (req: Request) => (deps.publicUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '');
  const configured = (): SsoDeps => {
    if (!deps.sso) throw new AppError(ErrorCode.SSO_NOT_CONFIGURED, 'single sign-on is not configured on this gateway (OIDC_ISSUER)');
    return deps.sso;
  };

  router.get('/v1/sign-in-methods', (_req, res) => {
    const body: SignInMethodsResponse = { sso: deps.sso ? { loginUrl: LOGIN_PATH, workspace: deps.sso.workspace } : null };
    res.json(body);
  });

  router.get(LOGIN_PATH, async (req, res) => {
    const start = await startSso(configured(), `${baseUrlOf(req)}${CALLBACK_PATH}`);
    // Lax, not Strict: the provider's redirect back is a cross-site navigation that must carry it.
    res.cookie(STATE_COOKIE, start.state, { httpOnly: true, sameSite: 'lax', secure: isHttps(req), path: CALLBACK_PATH, maxAge: SSO_PENDING_TTL_MS });
    res.setHeader('cache-control', 'no-store');
    res.redirect(302, start.url);
  });

  router.get(CALLBACK_PATH, async (req, res) => {
    const sso = configured();
    const query = parseQuery(SsoCallbackQuerySchema, req);
    const callbackUrl = new URL(`${baseUrlOf(req)}${req.originalUrl}`);
    const joined = await finishSso(sso, { state: query.state, error: query.error, callbackUrl, browserState: cookieOf(req, STATE_COOKIE) }, String(res.locals.requestId));
    res.clearCookie(STATE_COOKIE, { httpOnly: true, sameSite: 'lax', secure: isHttps(req), path: CALLBACK_PATH });
    setSessionCookie(req, res, joined.secret, joined.expiresAt);
    res.setHeader('cache-control', 'no-store');
    res.redirect(302, '/');
  });
  return router;
}
