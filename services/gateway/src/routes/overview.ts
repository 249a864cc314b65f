import { Router } from 'express';
import { OverviewQuerySchema } from '@switchyard/contracts';
import { readOverview } from '../commands/read-overview';
import { principalOf, requireRole } from '../http/auth';
import { parseQuery } from '../http/validate';
import type { OpsOverviewReader } from '../ops-overview-ports';

/**
 * `GET /v1/workspaces/{ws}/overview?window=<minutes>` (viewer): the
 * operations overview's figures (decision 0036), scoped by the token's
 * workspace.
 */
export function overviewRoutes(deps: { opsOverview: OpsOverviewReader }): Router {
  const router = Router({ mergeParams: true });
  router.get('/overview', requireRole('viewer'), async (req, res) => {
    const query = parseQuery(OverviewQuerySchema, req);
    res.json(await readOverview(deps.opsOverview, principalOf(res), query));
  });
  return router;
}
