import { Router, type Request, type Response } from 'express';
import { AgentIdSchema, ListRunsQuerySchema, RunIdSchema, StartRunRequestSchema, StopRunRequestSchema } from '@switchyard/contracts';
import { toRunResponse } from '../api-views';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import type { RunRecord, RunStore } from '../run-ports';
import type { RunCommandContext, RunLedger } from '../run-ledger';
import { getRun, listRuns } from '../workspace-queries';

/** What the runs routes need. */
export interface RunsRoutesDeps {
  runs: RunStore;
  ledger: RunLedger;
}

const runIdOf = (req: Request) => parseInput(RunIdSchema, req.params.id, 'run id');
const contextOf = (res: Response): RunCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/** Answers a new run: 201 with where it can be read. */
function sendCreated(res: Response, run: RunRecord): void {
  const principal = principalOf(res);
  res
    .status(201)
    .setHeader('Location', `/v1/workspaces/${principal.workspaceSlug}/runs/${run.id}`)
    .json(toRunResponse(run, principal));
}

/**
 * The run ledger under `/v1/workspaces/{ws}/runs`, plus manual runs under
 * `/agents/{id}/runs`: viewers read, members stop, retry and start runs.
 * Every query is scoped by the token's workspace, so another workspace's run
 * id is a 404.
 */
export function runsRoutes(deps: RunsRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.use('/runs', requireRole('viewer'));
  const write = requireRole('member');

  router.get('/runs', async (req, res) => {
    const query = parseQuery(ListRunsQuerySchema, req);
    res.json(await listRuns(deps.runs, principalOf(res), query));
  });

  router.get('/runs/:id', async (req, res) => {
    res.json(await getRun(deps.runs, principalOf(res), runIdOf(req)));
  });

  router.post('/runs/:id/stop', write, async (req, res) => {
    const id = runIdOf(req);
    const { cascade } = parseBody(StopRunRequestSchema, req);
    const { run, action, stopped } = await deps.ledger.stop(contextOf(res), id, cascade);
    // 200: everything stopped is cancelled now. 202: a runner cancels some of it at its next step.
    const pending = stopped.some((entry) => entry.action === 'stop_requested');
    res.status(pending ? 202 : 200).json({ ...toRunResponse(run, principalOf(res)), action, stopped });
  });

  router.post('/runs/:id/retry', write, async (req, res) => {
    const id = runIdOf(req);
    sendCreated(res, await deps.ledger.retry(contextOf(res), id));
  });

  router.post('/agents/:id/runs', write, async (req, res) => {
    const agentId = parseInput(AgentIdSchema, req.params.id, 'agent id');
    const { input } = parseBody(StartRunRequestSchema, req);
    sendCreated(res, await deps.ledger.start(contextOf(res), agentId, input));
  });

  return router;
}
