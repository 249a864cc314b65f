import { Router, type Request, type RequestHandler } from 'express';
import { AppError, ErrorCode, PutSecretRequestSchema, SecretNameSchema, type SecretInfo } from '@switchyard/contracts';
import type { SecretBox } from '@switchyard/core';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import type { SecretRecord, SecretStore } from '../ports';

/** What the secrets routes need. */
export interface SecretsRoutesDeps {
  secrets: SecretStore;
  /** Seals values with SECRETS_KEY; null when it is not configured, and then every secrets route answers 503. */
  secretBox: SecretBox | null;
}

const toSecretInfo = (secret: SecretRecord): SecretInfo => ({
  name: secret.name,
  createdAt: secret.createdAt.toISOString(),
  updatedAt: secret.updatedAt.toISOString(),
});

const nameOf = (req: Request) => parseInput(SecretNameSchema, req.params.name, 'secret name');

/**
 * Workspace secrets under `/v1/workspaces/{ws}/secrets` (docs/decisions/0011):
 * admins write and delete, members list names and dates. A value goes in and
 * never comes out: no response, log line or error carries it.
 */
export function secretsRoutes(deps: SecretsRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  const configured: RequestHandler = (_req, _res, next) => {
    if (!deps.secretBox) {
      throw new AppError(ErrorCode.UNAVAILABLE, 'workspace secrets are unavailable: SECRETS_KEY is not configured on the gateway');
    }
    next();
  };
  const admin = requireRole('admin');

  router.get('/secrets', requireRole('member'), configured, async (_req, res) => {
    const secrets = await deps.secrets.list(principalOf(res).workspaceId);
    res.json({ secrets: secrets.map(toSecretInfo) });
  });

  router.put('/secrets/:name', admin, configured, async (req, res) => {
    const name = nameOf(req);
    const { value } = parseBody(PutSecretRequestSchema, req);
    const { workspaceId } = principalOf(res);
    const sealed = deps.secretBox!.seal({ workspaceId, name }, value);
    const { secret, created } = await deps.secrets.put(workspaceId, name, sealed);
    res.status(created ? 201 : 200).json(toSecretInfo(secret));
  });

  router.delete('/secrets/:name', admin, configured, async (req, res) => {
    const name = nameOf(req);
    if (!(await deps.secrets.delete(principalOf(res).workspaceId, name))) {
      throw new AppError(ErrorCode.SECRET_NOT_FOUND, 'no such secret in this workspace', { name });
    }
    res.status(204).end();
  });

  return router;
}
