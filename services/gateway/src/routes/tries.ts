import { Router, type Response } from 'express';
import { AgentIdSchema, ListAgentTriesQuerySchema, RunIdSchema, TryAgentRequestSchema } from '@switchyard/contracts';
import { listTries, readWouldHave, type ReadTriesDeps } from '../commands/read-tries';
import type { TryAgent, TryCommandContext } from '../commands/try-agent';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';

/** What the try-drive routes need. */
export interface TriesRoutesDeps extends ReadTriesDeps {
  tryAgent: Pick<TryAgent, 'try'>;
}

const contextOf = (res: Response): TryCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/**
 * Try-drive (decision 0027): `POST /agents/try` (member; an agent token is
 * refused) runs a draft or saved agent once in shadow and answers 201 with
 * the run's id; `GET /agents/{id}/tries` and `GET /runs/{id}/would-have`
 * (viewer) read what tries did. The run itself reads like any run.
 */
export function triesRoutes(deps: TriesRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/agents/try', requireRole('member'), async (req, res) => {
    const body = parseBody(TryAgentRequestSchema, req);
    const tried = await deps.tryAgent.try(contextOf(res), body);
    res.status(201).setHeader('Location', `/v1/workspaces/${principalOf(res).workspaceSlug}/runs/${tried.runId}`).json(tried);
  });

  router.get('/agents/:id/tries', requireRole('viewer'), async (req, res) => {
    const id = parseInput(AgentIdSchema, req.params.id, 'agent id');
    res.json(await listTries(deps, principalOf(res), id, parseQuery(ListAgentTriesQuerySchema, req)));
  });

  router.get('/runs/:id/would-have', requireRole('viewer'), async (req, res) => {
    res.json(await readWouldHave(deps, principalOf(res), parseInput(RunIdSchema, req.params.id, 'run id')));
  });

  return router;
}
