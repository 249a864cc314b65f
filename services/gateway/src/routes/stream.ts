import { randomBytes } from 'node:crypto';
import { Router, type Request } from 'express';
import { AppError, ErrorCode, KindGlobSchema, StreamQuerySchema } from '@switchyard/contracts';
import { compileKindGlob, hashToken } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { toKey, type Redis } from '@switchyard/redis';
import { z } from 'zod';
import { authenticate, credentialOfRequest, principalOf, requireRole, type Authenticator, type Credential } from '../http/auth';
import { parseInput, parseQuery } from '../http/validate';
import type { Principal } from '../auth-ports';
import type { FactReader } from '../fact-ports';
import type { FactFeed } from '../sse/fact-feed';
import { keptCursor } from '../workspace-queries';
import type { CredentialWatch } from '../sse/credential-watch';
import { serveEventStream } from '../sse/event-stream';
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
  /** Ends an open stream once its token stops working (looked up every STREAM_AUTH_RECHECK_MS). */
  watch: CredentialWatch;
  log: Logger;
}

/** What a ticket stands for: who, and the token that minted it (its hash), to look up again on open. */
const TicketRecordSchema = z.object({
  principal: z.object({ tokenId: z.string() }).passthrough(),
  credential: z.object({ hash: z.string(), agent: z.boolean(), session: z.boolean().optional() }),
});

/**
 * Browsers' EventSource cannot send an Authorization header, and a long-lived
 * token in a URL ends up in logs. So a client with a token asks for a ticket
 * (POST /stream-tickets) and opens `/stream?ticket=…`: the ticket is random,
 * single-use (GETDEL), stored only as a hash, and expires in under a minute.
 * A ticket remembers the token that minted it, and opening a stream looks
 * that token up again; an open stream's token is looked up again by `watch`,
 * and the stream ends once it is revoked (or its run ended).
 */
export function streamRoutes(deps: StreamRoutesDeps): { tickets: Router; stream: Router } {
  const ticketKey = (ticket: string) => toKey(deps.prefix, 'ticket', hashToken(ticket));

  const tickets = Router({ mergeParams: true });
  tickets.post('/stream-tickets', requireRole('viewer'), async (req, res) => {
    const ticket = `st_${randomBytes(24).toString('base64url')}`;
    const record = { principal: principalOf(res), credential: credentialOfRequest(res) };
    await deps.redis.set(ticketKey(ticket), JSON.stringify(record), 'PX', deps.ticketTtlMs);
    res.status(201).json({ ticket, expiresAt: new Date(Date.now() + deps.ticketTtlMs).toISOString() });
  });

  const resolveTicket = async (req: Request): Promise<Principal | null> => {
    const ticket = typeof req.query.ticket === 'string' ? req.query.ticket : undefined;
    if (!ticket) return null;
    const stored = await deps.redis.getdel(ticketKey(ticket));
    const record = stored ? TicketRecordSchema.safeParse(JSON.parse(stored)) : undefined;
    if (!record?.success) throw new AppError(ErrorCode.STREAM_TICKET_INVALID, 'stream ticket is unknown, used or expired');
    req.res!.locals.credential = record.data.credential;
    return record.data.principal as unknown as Principal;
  };

  /**
   * The credential behind a stream being opened, once the store (not the cache) says it still
   * stands for the principal it was authenticated as: a ticket can outlive its token's revocation.
   */
  const recheckOpening = async (req: Request, opened: Principal): Promise<Credential> => {
    const credential = credentialOfRequest(req.res!);
    const now = await deps.authenticator.recheck(credential);
    if (now?.tokenId !== opened.tokenId) throw new AppError(ErrorCode.UNAUTHENTICATED, 'the token behind this stream is revoked or expired');
    return credential;
  };

  const stream = Router({ mergeParams: true });
  stream.get('/stream', authenticate(deps.authenticator, resolveTicket), requireRole('viewer'), async (req, res) => {
    const query = parseQuery(StreamQuerySchema, req);
    const kind = query.kind === undefined ? undefined : parseInput(KindGlobSchema, query.kind, 'kind');
    const principal = principalOf(res);
    const credential = await recheckOpening(req, principal);
    const workspace = { id: principal.workspaceId, slug: principal.workspaceSlug };
    const header = req.headers['last-event-id'];
    const resumeFrom =
      header !== undefined ? parseInput(z.coerce.number().int().min(0), header, 'Last-Event-ID') : query.after;
    // A resume behind the retention horizon is refused (410 CURSOR_EXPIRED) before the stream opens.
    const lastSeq = resumeFrom === undefined ? await deps.reader.lastSeq(workspace.id) : await keptCursor(deps.reader, workspace.id, resumeFrom);

    const session = new SseSession({
      res,
      workspace,
      reader: deps.reader,
      matcher: kind ? compileKindGlob(kind) : undefined,
      lastSeq,
      heartbeatMs: deps.heartbeatMs,
      log: deps.log,
    });
    // The start's seq as the first id: a client that reconnects before its first fact resumes from here, not from then.
    serveEventStream(res, session, {
      preamble: `retry: 2000\nid: ${lastSeq}\n\n`,
      watch: deps.watch,
      credential,
      tokenId: principal.tokenId,
      subscribe: () => deps.feed.subscribe(workspace.id, (fact) => session.push(fact)),
    });
  });
  return { tickets, stream };
}
