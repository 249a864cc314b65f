import { Router, type Request } from 'express';
import { ChangeMemberRoleRequestSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { changeMemberRole, removeMember, type MemberCommandDeps } from '../commands/members';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';

const userIdOf = (req: Request) => parseInput(z.uuid(), req.params.userId, 'user id');

/**
 * The workspace's people (decision 0042): everyone may list them (names are
 * what the UI shows for who did what); admins change roles and remove.
 */
export function membersRoutes(deps: MemberCommandDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/members', async (_req, res) => {
    res.json({ members: await deps.members.list(principalOf(res).workspaceId) });
  });

  router.patch('/members/:userId', requireRole('admin'), async (req, res) => {
    const userId = userIdOf(req);
    const { role } = parseBody(ChangeMemberRoleRequestSchema, req);
    res.json(await changeMemberRole(deps, principalOf(res), userId, role, String(res.locals.requestId)));
  });

  router.delete('/members/:userId', requireRole('admin'), async (req, res) => {
    await removeMember(deps, principalOf(res), userIdOf(req), String(res.locals.requestId));
    res.status(204).end();
  });
  return router;
}
