import { Router } from 'express';
import { WORKSPACE_FACT_KINDS, WorkspaceSettingsSchema, type AcceptedFact, type WorkspaceSettingsChangedPayload } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { principalOf, requireRole } from '../http/auth';
import { parseBody } from '../http/validate';
import type { IngestWriter, SettingsStore } from '../ports';
import { recordFacts } from '../record-facts';

/** What the settings routes need. */
export interface SettingsRoutesDeps {
  settings: SettingsStore;
  ingest: IngestWriter;
  log: Logger;
}

/**
 * `/v1/workspaces/{ws}/settings`: the kill switch. Viewers read; admins save.
 * Every save records `workspace.settings_changed` after the commit, even when
 * nothing changed: the matcher and runner treat it as "reload the settings",
 * and a repeated `PUT` re-announces a state whose fact was lost.
 */
export function settingsRoutes(deps: SettingsRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/settings', requireRole('viewer'), async (_req, res) => {
    res.json(await deps.settings.get(principalOf(res).workspaceId));
  });

  router.put('/settings', requireRole('admin'), async (req, res) => {
    const body = parseBody(WorkspaceSettingsSchema, req);
    const principal = principalOf(res);
    const saved = await deps.settings.put(principal.workspaceId, body);
    const payload: WorkspaceSettingsChangedPayload = saved;
    const fact: AcceptedFact = {
      id: newId(),
      workspace: principal.workspaceSlug,
      workspaceId: principal.workspaceId,
      kind: WORKSPACE_FACT_KINDS.settingsChanged,
      subject: { type: 'workspace', id: principal.workspaceId },
      actor: { type: 'user', id: principal.userId },
      payload,
      ts: new Date().toISOString(),
    };
    await recordFacts(deps.ingest, deps.log, [fact], String(res.locals.requestId));
    res.json(saved);
  });

  return router;
}
