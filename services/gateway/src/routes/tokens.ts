import { Router } from 'express';
import { CreateTokenRequestSchema } from '@switchyard/contracts';
import { z } from 'zod';
import type { Authenticator } from '../http/auth';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import { createToken, revokeToken, type TokenCommandDeps } from '../commands/create-token';
import type { AuthStore } from '../auth-ports';

/**
 * Token management: admins only. A new token's secret is shown once, in the
 * 201; a token may be given an expiry (`expiresAt` or `ttlSeconds`), shown
 * when listed. Creating and revoking record `token.created` / `token.revoked`.
 */
export function tokensRoutes(deps: TokenCommandDeps & { store: AuthStore; authenticator: Authenticator }): Router {
  const router = Router({ mergeParams: true });
  router.use('/tokens', requireRole('admin'));

  router.post('/tokens', async (req, res) => {
    const body = parseBody(CreateTokenRequestSchema, req);
    res.status(201).json(await createToken(deps, principalOf(res), body, String(res.locals.requestId)));
  });

  router.get('/tokens', async (_req, res) => {
    res.json({ tokens: await deps.store.listTokens(principalOf(res).workspaceId) });
  });

  router.delete('/tokens/:id', async (req, res) => {
    const id = parseInput(z.uuid(), req.params.id, 'token id');
    await revokeToken(deps, principalOf(res), id, String(res.locals.requestId));
    deps.authenticator.forget(id);
    res.status(204).end();
  });
  return router;
}
