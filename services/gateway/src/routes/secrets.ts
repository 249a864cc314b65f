import { Router, type Request, type RequestHandler } from 'express';
import { AppError, ErrorCode, PutSecretRequestSchema, SecretNameSchema, type SecretInfo } from '@switchyard/contracts';
import { deleteSecret, putSecret, type SecretCommandDeps } from '../commands/secrets';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import type { SecretRecord } from '../secret-ports';

/** What the secrets routes need. */
export type SecretsRoutesDeps = Omit<SecretCommandDeps, 'secretBox'> & {
  /** Seals values with SECRETS_KEY; null when it is not configured, and then every secrets route answers 503. */
  secretBox: SecretCommandDeps['secretBox'] | null;
};

const toSecretInfo = (secret: SecretRecord): SecretInfo => ({
  name: secret.name,
  createdAt: secret.createdAt.toISOString(),
  updatedAt: secret.updatedAt.toISOString(),
});

const nameOf = (req: Request) => parseInput(SecretNameSchema, req.params.name, 'secret name');

/**
 * Workspace secrets under `/v1/workspaces/{ws}/secrets` (docs/decisions/0011):
 * admins write and delete, members list names and dates. A value goes in and
 * never comes out: no response, log line, error or fact carries it. Setting
 * and deleting record `secret.set` / `secret.deleted` (the name).
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
    const { secret, created } = await putSecret({ ...deps, secretBox: deps.secretBox! }, principalOf(res), name, value, String(res.locals.requestId));
    res.status(created ? 201 : 200).json(toSecretInfo(secret));
  });

  router.delete('/secrets/:name', admin, configured, async (req, res) => {
    await deleteSecret(deps, principalOf(res), nameOf(req), String(res.locals.requestId));
    res.status(204).end();
  });

  return router;
}
