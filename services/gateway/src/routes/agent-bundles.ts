import { Router, type Response } from 'express';
import { AgentBundleSchema, AgentIdSchema, ExportAgentQuerySchema } from '@switchyard/contracts';
import type { AgentCommandContext } from '../commands/agent-registry';
import type { AgentBundles } from '../commands/agent-bundles';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';

const contextOf = (res: Response): AgentCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/**
 * Agent bundles (decision 0046): `GET …/agents/{id}/export` (viewer: an
 * export reads) and `POST …/agents:import` (member).
 */
export function agentBundlesRoutes(deps: { agentBundles: AgentBundles }): Router {
  const router = Router({ mergeParams: true });

  router.get('/agents/:id/export', requireRole('viewer'), async (req, res) => {
    const id = parseInput(AgentIdSchema, req.params.id, 'agent id');
    const query = parseQuery(ExportAgentQuerySchema, req);
    const bundle = await deps.agentBundles.export(contextOf(res), id, query);
    res.setHeader('Content-Disposition', `attachment; filename="${bundle.agents[0]!.name}.agents.json"`).json(bundle);
  });

  router.post('/agents\\:import', requireRole('member'), async (req, res) => {
    const bundle = parseBody(AgentBundleSchema, req);
    res.status(201).json(await deps.agentBundles.import(contextOf(res), bundle));
  });

  return router;
}
