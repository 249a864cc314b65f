import { Router, type Request } from 'express';
import { ApprovalIdSchema, DecideApprovalRequestSchema, ListApprovalsQuerySchema } from '@switchyard/contracts';
import { assertPerson, decideApproval, type DecideApprovalDeps } from '../commands/decide-approval';
import { getApproval, listApprovals } from '../commands/read-approvals';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import type { ApprovalsPort } from '../approval-ports';
import type { SaveAgent } from '../commands/self-improvement';

/** What the approvals routes need. */
export interface ApprovalsRoutesDeps extends DecideApprovalDeps {
  approvals: ApprovalsPort;
  /** Adds a save_agent proposal's eval (decision 0058). */
  saveAgent: Pick<SaveAgent, 'detail'>;
}

const approvalIdOf = (req: Request) => parseInput(ApprovalIdSchema, req.params.id, 'approval id');

/**
 * `/v1/workspaces/{ws}/approvals` (decision 0025): viewers list and read;
 * a person with the member role or higher decides (an agent token never
 * does). Every query is scoped by the token's workspace, so another
 * workspace's approval id is a 404.
 */
export function approvalsRoutes(deps: ApprovalsRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.use('/approvals', requireRole('viewer'));

  router.get('/approvals', async (req, res) => {
    const query = parseQuery(ListApprovalsQuerySchema, req);
    res.json(await listApprovals(deps.approvals, principalOf(res), query));
  });

  router.get('/approvals/:id', async (req, res) => {
    const ctx = { principal: principalOf(res), correlationId: String(res.locals.requestId) };
    res.json(await deps.saveAgent.detail(ctx, await getApproval(deps.approvals, ctx.principal, approvalIdOf(req))));
  });

  router.post('/approvals/:id/decision', requireRole('member'), async (req, res) => {
    // Refused before the body is read: an agent token is never a decider, whatever it sends.
    assertPerson(principalOf(res));
    const id = approvalIdOf(req);
    const body = parseBody(DecideApprovalRequestSchema, req);
    res.json(await decideApproval(deps, { principal: principalOf(res), correlationId: String(res.locals.requestId) }, id, body));
  });

  return router;
}
