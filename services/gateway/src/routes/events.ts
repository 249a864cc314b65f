import { Router } from 'express';
import { FactIdSchema, ListEventsQuerySchema, PostEventBatchRequestSchema, PostEventRequestSchema } from '@switchyard/contracts';
import { acceptEvents } from '../accept-events';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import { explainActivations } from '../commands/explain-activations';
import type { ActivationReads } from '../activation-ports';
import type { FactReader, IngestWriter } from '../fact-ports';
import { getEvent, listEvents } from '../workspace-queries';

/** What the events routes need. */
export interface EventsRoutesDeps {
  reader: FactReader;
  ingest: IngestWriter;
  activationReads: ActivationReads;
  /** The causation depth cap: a teammate's skip at it is explained (decision 0059). */
  maxCausationDepth: number;
}

/**
 * Facts under `/v1/workspaces/{ws}/events`: members record (acceptEvents, which
 * attributes an agent token's facts to its agent and run), viewers read.
 */
export function eventsRoutes(deps: EventsRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/events\\:batch', requireRole('member'), async (req, res) => {
    const body = parseBody(PostEventBatchRequestSchema, req);
    const results = await acceptEvents(deps, principalOf(res), body.events, String(res.locals.requestId));
    const anyAccepted = results.some((r) => r.status === 'accepted');
    res.status(anyAccepted ? 202 : 200).json({ ids: results.map((r) => r.id), results });
  });

  router.post('/events', requireRole('member'), async (req, res) => {
    const body = parseBody(PostEventRequestSchema, req);
    const [result] = await acceptEvents(deps, principalOf(res), [body], String(res.locals.requestId));
    res.status(result!.status === 'accepted' ? 202 : 200).json({ id: result!.id });
  });

  router.get('/events', requireRole('viewer'), async (req, res) => {
    const query = parseQuery(ListEventsQuerySchema, req);
    res.json(await listEvents(deps.reader, principalOf(res), query));
  });

  router.get('/events/:id', requireRole('viewer'), async (req, res) => {
    const id = parseInput(FactIdSchema, req.params.id, 'event id');
    res.json(await getEvent(deps.reader, principalOf(res), id));
  });

  router.get('/events/:id/activations', requireRole('viewer'), async (req, res) => {
    const id = parseInput(FactIdSchema, req.params.id, 'event id');
    res.json(await explainActivations(deps, principalOf(res), id));
  });

  return router;
}
