import { Router } from 'express';
import { AppError, ErrorCode, RunIdSchema, TranscriptQuerySchema } from '@switchyard/contracts';
import { principalOf, requireRole } from '../http/auth';
import { parseInput, parseQuery } from '../http/validate';
import type { RunStore, TranscriptReader } from '../ports';

/** What the transcript route needs. */
export interface TranscriptRoutesDeps {
  runs: Pick<RunStore, 'get'>;
  transcripts: TranscriptReader;
}

/**
 * `GET /v1/workspaces/{ws}/runs/{id}/transcript?after=&limit=` (viewer): the
 * run's transcript entries in `seq` order, a page at a time. The run is looked
 * up in the caller's workspace first, so another workspace's run is a 404
 * exactly like an unknown one.
 */
export function transcriptRoutes(deps: TranscriptRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/runs/:id/transcript', requireRole('viewer'), async (req, res) => {
    const id = parseInput(RunIdSchema, req.params.id, 'run id');
    const query = parseQuery(TranscriptQuerySchema, req);
    const { workspaceId } = principalOf(res);
    if (!(await deps.runs.get(workspaceId, id))) throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id });
    const entries = await deps.transcripts.listForRun(workspaceId, id, query);
    res.json({ entries, next: entries.length === query.limit ? entries.at(-1)!.seq : null });
  });

  return router;
}
