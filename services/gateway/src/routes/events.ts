import { Router } from 'express';
import {
  AppError,
  ErrorCode,
  FactIdSchema,
  ListEventsQuerySchema,
  PostEventBatchRequestSchema,
  PostEventRequestSchema,
  type AcceptedFact,
  type PostEventRequest,
} from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import type { FactReader, IngestWriter, Principal } from '../ports';

/** What the events routes need. */
export interface EventsRoutesDeps {
  reader: FactReader;
  ingest: IngestWriter;
}

/**
 * Accepts facts into `ingest` and reads stored ones. A key already stored in
 * PostgreSQL (older than Redis remembers) resolves to the stored id before
 * anything is written; a key claimed in Redis resolves there atomically.
 */
async function accept(deps: EventsRoutesDeps, principal: Principal, requests: PostEventRequest[], correlationId: string) {
  const keys = requests.flatMap((r) => (r.idempotencyKey === undefined ? [] : [r.idempotencyKey]));
  const stored = await deps.reader.findByIdempotencyKeys(principal.workspaceId, keys);
  const results: Array<{ id: string; status: 'accepted' | 'duplicate' }> = new Array(requests.length);
  const fresh: Array<{ index: number; fact: AcceptedFact }> = [];
  const ts = new Date().toISOString();
  requests.forEach((request, index) => {
    const storedId = request.idempotencyKey === undefined ? undefined : stored.get(request.idempotencyKey);
    if (storedId) {
      results[index] = { id: storedId, status: 'duplicate' };
      return;
    }
    const fact: AcceptedFact = { id: newId(), workspace: principal.workspaceSlug, workspaceId: principal.workspaceId, ...request, ts };
    fresh.push({ index, fact });
  });
  const accepted = await deps.ingest.accept(fresh.map(({ fact }) => ({ fact, correlationId })));
  accepted.forEach((result, i) => (results[fresh[i]!.index] = result));
  return results;
}

export function eventsRoutes(deps: EventsRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/events\\:batch', requireRole('member'), async (req, res) => {
    const body = parseBody(PostEventBatchRequestSchema, req);
    const results = await accept(deps, principalOf(res), body.events, String(res.locals.requestId));
    const anyAccepted = results.some((r) => r.status === 'accepted');
    res.status(anyAccepted ? 202 : 200).json({ ids: results.map((r) => r.id), results });
  });

  router.post('/events', requireRole('member'), async (req, res) => {
    const body = parseBody(PostEventRequestSchema, req);
    const [result] = await accept(deps, principalOf(res), [body], String(res.locals.requestId));
    res.status(result!.status === 'accepted' ? 202 : 200).json({ id: result!.id });
  });

  router.get('/events', requireRole('viewer'), async (req, res) => {
    const query = parseQuery(ListEventsQuerySchema, req);
    const principal = principalOf(res);
    const events = await deps.reader.listAfter({ id: principal.workspaceId, slug: principal.workspaceSlug }, query.after, {
      kindGlob: query.kind,
      limit: query.limit,
    });
    res.json({ events, nextCursor: events.at(-1)?.seq ?? query.after });
  });

  router.get('/events/:id', requireRole('viewer'), async (req, res) => {
    const id = parseInput(FactIdSchema, req.params.id, 'event id');
    const principal = principalOf(res);
    const fact = await deps.reader.get({ id: principal.workspaceId, slug: principal.workspaceSlug }, id);
    if (!fact) throw new AppError(ErrorCode.EVENT_NOT_FOUND, 'no such event in this workspace', { id });
    res.json(fact);
  });

  return router;
}
