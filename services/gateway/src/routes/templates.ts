import { Router, type Response } from 'express';
import { AdoptTemplateRequestSchema, TemplateIdSchema } from '@switchyard/contracts';
import type { AgentCommandContext } from '../commands/agent-registry';
import type { Templates } from '../commands/templates';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';

const contextOf = (res: Response): AgentCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/** First-party templates (decision 0049): `GET …/templates` (viewer) and `POST …/templates/{id}/adopt` (member). */
export function templatesRoutes(deps: { templates: Templates }): Router {
  const router = Router({ mergeParams: true });

  router.get('/templates', requireRole('viewer'), (_req, res) => {
    res.json({ templates: deps.templates.list() });
  });

  router.post('/templates/:id/adopt', requireRole('member'), async (req, res) => {
    const id = parseInput(TemplateIdSchema, req.params.id, 'template id');
    const request = parseBody(AdoptTemplateRequestSchema, req);
    res.status(201).json(await deps.templates.adopt(contextOf(res), id, request));
  });

  return router;
}
