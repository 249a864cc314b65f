import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Router } from 'express';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';

/** The path of the BullMQ dashboard. */
export const ADMIN_QUEUES_PATH = '/admin/queues';

const sha = (text: string) => createHash('sha256').update(text).digest();

/**
 * The instance operator's credential (GATEWAY_ADMIN_TOKEN), compared as
 * SHA-256 digests in constant time: `Authorization: Bearer <token>`, or HTTP
 * Basic with the token as password (what a browser can send to the
 * dashboard's pages and their API calls). No workspace token opens it: the
 * queues hold every workspace's jobs (decision 0033).
 */
export function requireAdminToken(adminToken: string): RequestHandler {
  const expected = sha(adminToken);
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header)?.[1];
    const given = bearer ?? (basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : undefined);
    if (given !== undefined && timingSafeEqual(sha(given), expected)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="switchyard-admin", charset="UTF-8"');
    res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'the instance admin token (GATEWAY_ADMIN_TOKEN) is required' } });
  };
}

/** bull-board over the given queues, served under ADMIN_QUEUES_PATH (its own express app). */
export function adminQueuesApp(queues: readonly Queue[]): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter });
  return serverAdapter.getRouter() as Router;
}
