import { Router, type Request, type Response } from 'express';
import { AgentIdSchema, AppError, ErrorCode, ListRunsQuerySchema, RunIdSchema, StartRunRequestSchema, type Run } from '@switchyard/contracts';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import type { Principal, RunRecord, RunStore } from '../ports';
import type { RunCommandContext, RunLedger } from '../run-ledger';

/** What the runs routes need. */
export interface RunsRoutesDeps {
  runs: RunStore;
  ledger: RunLedger;
}

/** A run as the API shows it (`RunSchema`): ISO timestamps, the workspace by slug. */
export function toRunResponse(run: RunRecord, principal: Principal): Run {
  return {
    id: run.id,
    workspace: principal.workspaceSlug,
    agentId: run.agentId,
    agentVersion: run.agentVersion,
    origin: run.origin,
    status: run.status,
    reason: run.reason,
    causedBy: run.causedBy,
    depth: run.depth,
    sessionId: run.sessionId,
    outcome: run.outcome,
    error: run.error,
    queuedAt: run.queuedAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    endedAt: run.endedAt?.toISOString() ?? null,
  };
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
    const principal = principalOf(res);
    const runs = await deps.runs.list(principal.workspaceId, query);
    res.json({
      runs: runs.map((run) => toRunResponse(run, principal)),
      nextCursor: runs.length === query.limit ? runs.at(-1)!.id : null,
    });
  });

  router.get('/runs/:id', async (req, res) => {
    const id = runIdOf(req);
    const principal = principalOf(res);
    const run = await deps.runs.get(principal.workspaceId, id);
    if (!run) throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id });
    res.json(toRunResponse(run, principal));
  });

  router.post('/runs/:id/stop', write, async (req, res) => {
    const id = runIdOf(req);
    const { run, action } = await deps.ledger.stop(contextOf(res), id);
    // 200: it is cancelled now. 202: the runner will cancel it at its next step.
    res.status(action === 'cancelled' ? 200 : 202).json(toRunResponse(run, principalOf(res)));
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
