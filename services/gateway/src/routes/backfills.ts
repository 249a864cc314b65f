import { Router, type Request, type Response } from 'express';
import { AgentIdSchema, BackfillBatchIdSchema, BackfillRequestSchema } from '@switchyard/contracts';
import type { AgentBackfills } from '../commands/backfill';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import type { RunCommandContext } from '../run-ledger';

const agentIdOf = (req: Request) => parseInput(AgentIdSchema, req.params.id, 'agent id');
const contextOf = (res: Response): RunCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/** Backfills under `/v1/workspaces/{ws}/agents/{id}` (decision 0055; members): parse, call AgentBackfills, answer. */
export function backfillRoutes(deps: { backfills: AgentBackfills }): Router {
  const router = Router({ mergeParams: true });
  const write = requireRole('member');

  router.post('/agents/:id/backfill', write, async (req, res) => {
    const id = agentIdOf(req);
    const body = parseBody(BackfillRequestSchema, req);
    const result = await deps.backfills.backfill(contextOf(res), id, body);
    res.status(result.dryRun ? 200 : 201).json(result);
  });

  router.get('/agents/:id/backfills/:batchId', async (req, res) => {
    const id = agentIdOf(req);
    const batchId = parseInput(BackfillBatchIdSchema, req.params.batchId, 'backfill batch id');
    res.json(await deps.backfills.get(contextOf(res), id, batchId));
  });

  router.post('/agents/:id/backfills/:batchId/stop', write, async (req, res) => {
    const id = agentIdOf(req);
    const batchId = parseInput(BackfillBatchIdSchema, req.params.batchId, 'backfill batch id');
    res.json(await deps.backfills.stop(contextOf(res), id, batchId));
  });

  return router;
}
