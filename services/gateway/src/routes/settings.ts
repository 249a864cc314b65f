import { Router } from 'express';
import { WorkspaceSettingsSchema } from '@switchyard/contracts';
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
 * `/v1/workspaces/{ws}/settings`: the kill switch. Viewers read; admins save.
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
    const body = parseBody(WorkspaceSettingsSchema, req);
    const principal = principalOf(res);
    const author = changeAuthorOf(principal);
    const correlationId = String(res.locals.requestId);
    const fact = settingsChangedFact(author, body);
    const saved = await deps.settings.put(principal.workspaceId, body, (stored) => [{ fact: { ...fact, payload: { ...stored } }, correlationId }]);
    await deps.outbox.flush([fact.id]);
    res.json(saved);
  });

  return router;
}
