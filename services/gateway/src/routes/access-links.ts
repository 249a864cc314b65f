import { Router, type Request, type Response } from 'express';
import { AcceptInvitationRequestSchema, CreateInvitationRequestSchema, RedeemSignInLinkRequestSchema } from '@switchyard/contracts';
import { acceptInvitation, inviteMember, redeemSignInLink, type AccessLinkDeps, type JoinedSession } from '../commands/access-links';
import { principalOf, requireRole } from '../http/auth';
import { jsonBody } from '../http/json-body';
import { setSessionCookie } from '../http/ui-session-cookie';
import { parseBody } from '../http/validate';

/** What the invitation and sign-in link routes need. */
export interface AccessLinkRoutesDeps extends AccessLinkDeps {
  /** PUBLIC_URL: the base of the links made; unset, the gateway as the request reached it. */
  publicUrl: string | undefined;
  bodyLimitBytes: number;
}

/** The base URL of a link made in answer to `req`. */
const baseUrlOf = (deps: AccessLinkRoutesDeps, req: Request) => deps.publicUrl ?? `${req.protocol}://${req.get('host')}`;

/**
 * `POST /members/invitations` (admins), under the workspace router: a
 * one-time invitation link (decision 0042).
 */
export function invitationRoutes(deps: AccessLinkRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.post('/members/invitations', requireRole('admin'), async (req, res) => {
    const body = parseBody(CreateInvitationRequestSchema, req);
    res.status(201).json(await inviteMember(deps, principalOf(res), body, baseUrlOf(deps, req), String(res.locals.requestId)));
  });
  return router;
}

function answerJoined(req: Request, res: Response, joined: JoinedSession): void {
  setSessionCookie(req, res, joined.secret, joined.expiresAt);
  res.setHeader('cache-control', 'no-store');
  res.status(201).json(joined.response);
}

/**
 * The two doors a person comes in by without a token (decision 0042): an
 * invitation accepted with a chosen name, and a one-time sign-in link. Each
 * answers with a session cookie, as `POST /v1/session` does; the link's secret
 * is the credential, so they need no other.
 */
export function linkDoorRoutes(deps: AccessLinkRoutesDeps): Router {
  const router = Router();
  // jsonBody insists on application/json: a cross-site form cannot post one (no login CSRF).
  const body = jsonBody({ limitBytes: deps.bodyLimitBytes });
  router.post('/v1/invitations/accept', ...body, async (req, res) => {
    answerJoined(req, res, await acceptInvitation(deps, parseBody(AcceptInvitationRequestSchema, req), String(res.locals.requestId)));
  });
  router.post('/v1/sign-in-links/redeem', ...body, async (req, res) => {
    const { token } = parseBody(RedeemSignInLinkRequestSchema, req);
    answerJoined(req, res, await redeemSignInLink(deps, token, String(res.locals.requestId)));
  });
  return router;
}
