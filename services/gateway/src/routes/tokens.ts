import { Router } from 'express';
import { AppError, CreateTokenRequestSchema, ErrorCode } from '@switchyard/contracts';
import { z } from 'zod';
import type { Authenticator } from '../http/auth';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import { createToken } from '../commands/create-token';
import type { AuthStore } from '../ports';

/**
 * Token management: admins only. A new token's secret is shown once, in the
 * 201; a token may be given an expiry (`expiresAt` or `ttlSeconds`), shown
 * when listed.
 */
export function tokensRoutes(deps: { store: AuthStore; authenticator: Authenticator }): Router {
  const router = Router({ mergeParams: true });
  router.use('/tokens', requireRole('admin'));

  router.post('/tokens', async (req, res) => {
    const body = parseBody(CreateTokenRequestSchema, req);
    res.status(201).json(await createToken(deps.store, principalOf(res), body));
  });

  router.get('/tokens', async (_req, res) => {
    res.json({ tokens: await deps.store.listTokens(principalOf(res).workspaceId) });
  });

  router.delete('/tokens/:id', async (req, res) => {
    const id = parseInput(z.uuid(), req.params.id, 'token id');
    if (!(await deps.store.revokeToken(principalOf(res).workspaceId, id))) {
      throw new AppError(ErrorCode.TOKEN_NOT_FOUND, 'no such token in this workspace', { id });
    }
    deps.authenticator.forget(id);
    res.status(204).end();
  });
  return router;
}
