import { randomBytes } from 'node:crypto';
import { Router, type Request } from 'express';
import { AppError, ErrorCode, KindGlobSchema, StreamQuerySchema } from '@switchyard/contracts';
import { compileKindGlob, hashToken } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { toKey, type Redis } from '@switchyard/redis';
import { z } from 'zod';
import { authenticate, principalOf, requireRole, type Authenticator } from '../http/auth';
import { parseInput, parseQuery } from '../http/validate';
import type { FactReader, Principal } from '../ports';
import type { FactFeed } from '../sse/fact-feed';
import { SseSession } from '../sse/sse-session';

/** What the stream routes need. */
export interface StreamRoutesDeps {
  redis: Redis;
  prefix: string;
  reader: FactReader;
  feed: FactFeed;
  authenticator: Authenticator;
  ticketTtlMs: number;
  heartbeatMs: number;
  log: Logger;
}

/**
 * Browsers' EventSource cannot send an Authorization header, and a long-lived
 * token in a URL ends up in logs. So a client with a token asks for a ticket
 * (POST /stream-tickets) and opens `/stream?ticket=…`: the ticket is random,
 * single-use (GETDEL), stored only as a hash, and expires in under a minute.
 */
export function streamRoutes(deps: StreamRoutesDeps): { tickets: Router; stream: Router } {
  const ticketKey = (ticket: string) => toKey(deps.prefix, 'ticket', hashToken(ticket));

  const tickets = Router({ mergeParams: true });
  tickets.post('/stream-tickets', requireRole('viewer'), async (_req, res) => {
    const ticket = `st_${randomBytes(24).toString('base64url')}`;
    await deps.redis.set(ticketKey(ticket), JSON.stringify(principalOf(res)), 'PX', deps.ticketTtlMs);
    res.status(201).json({ ticket, expiresAt: new Date(Date.now() + deps.ticketTtlMs).toISOString() });
  });

  const resolveTicket = async (req: Request): Promise<Principal | null> => {
    const ticket = typeof req.query.ticket === 'string' ? req.query.ticket : undefined;
    if (!ticket) return null;
    const stored = await deps.redis.getdel(ticketKey(ticket));
    if (!stored) throw new AppError(ErrorCode.STREAM_TICKET_INVALID, 'stream ticket is unknown, used or expired');
    return JSON.parse(stored) as Principal;
  };

  const stream = Router({ mergeParams: true });
  stream.get('/stream', authenticate(deps.authenticator, resolveTicket), requireRole('viewer'), async (req, res) => {
    const query = parseQuery(StreamQuerySchema, req);
    const kind = query.kind === undefined ? undefined : parseInput(KindGlobSchema, query.kind, 'kind');
    const principal = principalOf(res);
    const workspace = { id: principal.workspaceId, slug: principal.workspaceSlug };
    const header = req.headers['last-event-id'];
    const resumeFrom =
      header !== undefined ? parseInput(z.coerce.number().int().min(0), header, 'Last-Event-ID') : query.after;
    const lastSeq = resumeFrom ?? (await deps.reader.lastSeq(workspace.id));

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies (nginx) must not buffer the stream.
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const session = new SseSession({
      res,
      workspace,
      reader: deps.reader,
      matcher: kind ? compileKindGlob(kind) : undefined,
      lastSeq,
      heartbeatMs: deps.heartbeatMs,
      log: deps.log,
    });
    const unsubscribe = deps.feed.subscribe(workspace.id, (fact) => session.push(fact));
    session.start();
    req.on('close', () => {
      unsubscribe();
      session.close();
    });
  });
  return { tickets, stream };
}
