import { Router } from 'express';
import type { WhoAmIResponse } from '@switchyard/contracts';
import { authenticateBearer, principalOf, type Authenticator } from '../http/auth';
import { rateLimit, type TokenRateLimiter } from '../http/rate-limit';
import type { Principal } from '../auth-ports';

/** What `GET /v1/whoami` needs. */
export interface WhoAmIRoutesDeps {
  authenticator: Authenticator;
  rateLimiter: TokenRateLimiter;
  ratePerSecond: number;
}

/** What a principal is, as `GET /v1/whoami` shows it. */
export function toWhoAmI(principal: Principal): WhoAmIResponse {
  return {
    tokenId: principal.tokenId,
    tokenType: principal.agent ? 'agent' : 'api',
    workspace: { id: principal.workspaceId, slug: principal.workspaceSlug },
    userId: principal.userId,
    userName: principal.userName ?? null,
    role: principal.role,
    expiresAt: principal.expiresAt ?? null,
    agent: principal.agent ? { agentId: principal.agent.agentId, runId: principal.agent.runId, depth: principal.agent.depth } : null,
  };
}

/**
 * `GET /v1/whoami`: any valid bearer token (a person's API token or a run's
 * agent token) learns its workspace, role and token id — what a client needs
 * to build workspace paths from nothing but a token. No workspace in the path:
 * the workspace is the token's.
 */
export function whoamiRoutes(deps: WhoAmIRoutesDeps): Router {
  const router = Router();
  router.get('/v1/whoami', authenticateBearer(deps.authenticator), rateLimit(deps.rateLimiter, deps.ratePerSecond), (_req, res) => {
    res.json(toWhoAmI(principalOf(res)));
  });
  return router;
}
