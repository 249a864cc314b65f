import { Router, type Request, type Response } from 'express';
import { AgentIdSchema, ListCollaboratorsQuerySchema, PutCollaboratorRequestSchema } from '@switchyard/contracts';
import type { CollaboratorCommandContext, CollaboratorRules } from '../commands/collaborators';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';

/** What the collaborator routes need. */
export interface CollaboratorsRoutesDeps {
  collaboratorRules: CollaboratorRules;
}

const agentIdOf = (req: Request) => parseInput(AgentIdSchema, req.params.id, 'agent id');
const otherIdOf = (req: Request) => parseInput(AgentIdSchema, req.params.otherId, 'collaborator id');
const contextOf = (res: Response): CollaboratorCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/**
 * An agent's collaborator rules under `/v1/workspaces/{ws}/agents/{id}/collaborators`
 * (decision 0032): viewers read, members write (never an agent token).
 */
export function collaboratorsRoutes(deps: CollaboratorsRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  const rules = deps.collaboratorRules;
  const read = requireRole('viewer');
  const write = requireRole('member');

  router.get('/agents/:id/collaborators', read, async (req, res) => {
    const id = agentIdOf(req);
    res.json(await rules.list(principalOf(res), id, parseQuery(ListCollaboratorsQuerySchema, req)));
  });

  router.put('/agents/:id/collaborators/:otherId', write, async (req, res) => {
    const id = agentIdOf(req);
    const otherId = otherIdOf(req);
    const { enabled } = parseBody(PutCollaboratorRequestSchema, req);
    res.json(await rules.put(contextOf(res), id, otherId, enabled));
  });

  router.delete('/agents/:id/collaborators/:otherId', write, async (req, res) => {
    await rules.remove(contextOf(res), agentIdOf(req), otherIdOf(req));
    res.status(204).end();
  });

  return router;
}
