import { Router } from 'express';
import { AuditQuerySchema } from '@switchyard/contracts';
import type { AuditReader } from '../audit-ports';
import { readAudit, readAuditActors } from '../commands/read-audit';
import { principalOf, requireRole } from '../http/auth';
import { parseQuery } from '../http/validate';

/**
 * The audit trail under `/v1/workspaces/{ws}/audit` (decision 0040): admins
 * read who changed tokens, members, secrets, notifications, links, agents,
 * collaborator rules and the kill switch, newest first.
 */
export function auditRoutes(deps: { audit: AuditReader }): Router {
  const router = Router({ mergeParams: true });
  const admin = requireRole('admin');

  router.get('/audit', admin, async (req, res) => {
    res.json(await readAudit(deps.audit, principalOf(res), parseQuery(AuditQuerySchema, req)));
  });

  router.get('/audit/actors', admin, async (_req, res) => {
    res.json(await readAuditActors(deps.audit, principalOf(res)));
  });

  return router;
}
