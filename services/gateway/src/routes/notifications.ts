import { Router } from 'express';
import { NotificationSettingsSchema, NotificationTestRequestSchema } from '@switchyard/contracts';
import {
  issueMattermostLinkCode,
  readNotificationSettings,
  saveNotificationSettings,
  sendTestNotification,
  type NotificationCommandDeps,
} from '../commands/notification-settings';
import { principalOf, requireRole } from '../http/auth';
import { parseBody } from '../http/validate';

/**
 * `/v1/workspaces/{ws}/settings/notifications` (decision 0030): viewers read
 * the rules (secrets are named, never shown), admins save and send a test
 * post; any member (viewers too: a link acts with the member's own role)
 * gets a one-time code to link their Mattermost user.
 */
export function notificationRoutes(deps: NotificationCommandDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/settings/notifications', requireRole('viewer'), async (_req, res) => {
    res.json(await readNotificationSettings(deps, principalOf(res)));
  });

  router.put('/settings/notifications', requireRole('admin'), async (req, res) => {
    const body = parseBody(NotificationSettingsSchema, req);
    res.json(await saveNotificationSettings(deps, principalOf(res), body, String(res.locals.requestId)));
  });

  router.post('/settings/notifications/test', requireRole('admin'), async (req, res) => {
    const { channel } = parseBody(NotificationTestRequestSchema, req);
    res.json(await sendTestNotification(deps, principalOf(res), channel));
  });

  router.post('/integrations/mattermost/link-codes', requireRole('viewer'), async (_req, res) => {
    res.status(201).json(await issueMattermostLinkCode(deps, principalOf(res)));
  });

  return router;
}
