import { Router } from 'express';
import { PutSettingsRequestSchema } from '@switchyard/contracts';
import { settingsChangedFact } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import { principalOf, requireRole } from '../http/auth';
import { parseBody } from '../http/validate';
import type { FactFlusher, SettingsStore } from '../ports';

/** What the settings routes need. */
export interface SettingsRoutesDeps {
  settings: SettingsStore;
  outbox: FactFlusher;
}

/**
 * `/v1/workspaces/{ws}/settings`: the kill switch and the approvals setting.
 * Viewers read; admins save the settings they name.
 * Every save records `workspace.settings_changed` with it, even when nothing
 * changed, relayed before the answer: a fact posted after a pause is not
 * activated.
 */
export function settingsRoutes(deps: SettingsRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/settings', requireRole('viewer'), async (_req, res) => {
    res.json(await deps.settings.get(principalOf(res).workspaceId));
  });

  router.put('/settings', requireRole('admin'), async (req, res) => {
    const body = parseBody(PutSettingsRequestSchema, req);
    const principal = principalOf(res);
    const author = changeAuthorOf(principal);
    const correlationId = String(res.locals.requestId);
    let factId = '';
    const saved = await deps.settings.put(principal.workspaceId, body, (stored) => {
      const fact = settingsChangedFact(author, stored);
      factId = fact.id;
      return [{ fact, correlationId }];
    });
    await deps.outbox.flush([factId]);
    res.json(saved);
  });

  return router;
}
