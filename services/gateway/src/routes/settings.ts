import { Router } from 'express';
import { PutSettingsRequestSchema } from '@switchyard/contracts';
import { saveSettings, type SettingsCommandDeps } from '../commands/kill-switch';
import { principalOf, requireRole } from '../http/auth';
import { parseBody } from '../http/validate';

/**
 * `/v1/workspaces/{ws}/settings`: the kill switch and the approvals setting.
 * Viewers read; admins save the settings they name (saveSettings records
 * `workspace.settings_changed` with each save).
 */
export function settingsRoutes(deps: SettingsCommandDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/settings', requireRole('viewer'), async (_req, res) => {
    res.json(await deps.settings.get(principalOf(res).workspaceId));
  });

  router.put('/settings', requireRole('admin'), async (req, res) => {
    const body = parseBody(PutSettingsRequestSchema, req);
    res.json(await saveSettings(deps, principalOf(res), body, String(res.locals.requestId)));
  });

  return router;
}
