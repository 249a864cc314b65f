import { Router } from 'express';
import { RunIdSchema, TranscriptQuerySchema } from '@switchyard/contracts';
import { readRunTrace, type ReadRunTraceDeps } from '../commands/read-run-trace';
import { readTranscript, type ReadTranscriptDeps } from '../commands/read-transcript';
import { principalOf, requireRole } from '../http/auth';
import { parseInput, parseQuery } from '../http/validate';

/** What the transcript route needs. */
export type TranscriptRoutesDeps = ReadTranscriptDeps & ReadRunTraceDeps;

/**
 * `GET /v1/workspaces/{ws}/runs/{id}/transcript?after=&limit=` (viewer): the
 * run's transcript entries in `seq` order, a page at a time (see readTranscript);
 * `GET …/runs/{id}/trace` (viewer): the same run as a tree of spans (readRunTrace).
 */
export function transcriptRoutes(deps: TranscriptRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/runs/:id/transcript', requireRole('viewer'), async (req, res) => {
    const id = parseInput(RunIdSchema, req.params.id, 'run id');
    const query = parseQuery(TranscriptQuerySchema, req);
    res.json(await readTranscript(deps, principalOf(res), id, query));
  });

  router.get('/runs/:id/trace', requireRole('viewer'), async (req, res) => {
    const id = parseInput(RunIdSchema, req.params.id, 'run id');
    res.json(await readRunTrace(deps, principalOf(res), id));
  });

  return router;
}
