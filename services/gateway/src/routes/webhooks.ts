import { Router, type Request, type RequestHandler, type Response } from 'express';
import { PutWebhookRequestSchema, WebhookNameSchema, WorkspaceSlugSchema } from '@switchyard/contracts';
import { receiveWebhook, type ReceiveWebhookDeps } from '../commands/receive-webhook';
import type { WebhookCommandContext, WebhookSettings } from '../commands/webhooks';
import { principalOf, requireRole } from '../http/auth';
import { rawJsonBody } from '../http/json-body';
import { rateLimit, type TokenRateLimiter } from '../http/rate-limit';
import { parseBody, parseInput } from '../http/validate';

const nameOf = (req: Request) => parseInput(WebhookNameSchema, req.params.name, 'webhook name');
const contextOf = (res: Response): WebhookCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/**
 * Webhook configuration under `/v1/workspaces/{ws}/webhooks` (admins;
 * docs/webhooks.md), behind the workspace router's authentication. No
 * answer ever carries a secret.
 */
export function webhooksRoutes(deps: { webhookSettings: WebhookSettings }): Router {
  const router = Router({ mergeParams: true });
  const settings = deps.webhookSettings;
  const admin = requireRole('admin');

  router.get('/webhooks', admin, async (_req, res) => {
    res.json({ webhooks: await settings.list(principalOf(res)) });
  });

  router.get('/webhooks/:name', admin, async (req, res) => {
    res.json(await settings.get(principalOf(res), nameOf(req)));
  });

  router.put('/webhooks/:name', admin, async (req, res) => {
    const name = nameOf(req);
    const request = parseBody(PutWebhookRequestSchema, req);
    const { webhook, created } = await settings.put(contextOf(res), name, request);
    res.status(created ? 201 : 200).json(webhook);
  });

  router.delete('/webhooks/:name', admin, async (req, res) => {
    await settings.delete(contextOf(res), nameOf(req));
    res.status(204).end();
  });

  return router;
}

/** What the delivery door needs. */
export type WebhookDeliveryRoutesDeps = ReceiveWebhookDeps & {
  /** Counts deliveries per webhook (WEBHOOK_RATE_LIMIT_PER_SECOND), found or not. */
  rateLimiter: TokenRateLimiter;
  ratePerSecond: number;
  bodyLimitBytes: number;
};

/** A header's one value; undefined when it is absent or was sent more than once (which value would count?). */
const headerOf = (req: Request) => (name: string) => {
  const values = req.headersDistinct[name];
  return values?.length === 1 ? values[0] : undefined;
};

/**
 * `POST /v1/workspaces/{ws}/webhooks/{name}`: a sender's delivery, with no
 * platform token, so it is mounted before the workspace router's
 * authentication and JSON parsing. The path is checked first (400), the
 * webhook's rate counted (429) and the body read as bytes with the JSON
 * door's limits, all before the webhook is looked up, so an unknown
 * workspace and an unknown name take the same path to the same 404.
 */
export function webhookDeliveryRoutes(deps: WebhookDeliveryRoutesDeps): Router {
  const router = Router();
  const path = '/v1/workspaces/:ws/webhooks/:name';
  const target = (req: Request) => ({ slug: parseInput(WorkspaceSlugSchema, req.params.ws, 'workspace slug'), name: nameOf(req) });
  const checkTarget: RequestHandler = (req, _res, next) => {
    target(req);
    next();
  };
  const perWebhook = { key: (req: Request) => `webhook/${req.params.ws}/${req.params.name}`, what: 'webhook' };

  router.post(
    path,
    checkTarget,
    rateLimit(deps.rateLimiter, deps.ratePerSecond, perWebhook),
    ...rawJsonBody({ limitBytes: deps.bodyLimitBytes }),
    async (req, res) => {
      const raw: Uint8Array = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const delivery = await receiveWebhook(deps, { ...target(req), header: headerOf(req), raw }, String(res.locals.requestId));
      res.status(202).json(delivery);
    },
  );

  return router;
}
