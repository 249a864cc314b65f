import { Router } from 'express';
import { MattermostActionRequestSchema, MattermostSlashCommandSchema, WorkspaceSlugSchema } from '@switchyard/contracts';
import { decideFromButton, type MattermostActionDeps } from '../commands/mattermost-action';
import { runSlashCommand, type SlashCommandDeps } from '../commands/mattermost-slash';
import { formOrJsonBody, jsonBody } from '../http/json-body';
import { parseBody, parseInput } from '../http/validate';

/** What Mattermost's calls to the gateway need. */
export type MattermostIntegrationDeps = MattermostActionDeps & SlashCommandDeps & { bodyLimitBytes: number };

/**
 * `/integrations/mattermost/*`: the calls Mattermost makes (no bearer token:
 * a button is authorized by its signed context and the linked user, a slash
 * command by its token). The Mattermost server must be allowed to reach
 * these (`AllowedUntrustedInternalConnections` when they are internal).
 */
export function mattermostIntegrationRoutes(deps: MattermostIntegrationDeps): Router {
  const router = Router();
  const limit = Math.min(deps.bodyLimitBytes, 64 * 1024);

  router.post('/integrations/mattermost/actions', ...jsonBody({ limitBytes: limit }), async (req, res) => {
    const request = parseBody(MattermostActionRequestSchema, req);
    res.json(await decideFromButton(deps, request, String(res.locals.requestId)));
  });

  // Mattermost posts slash commands as a form (or JSON, when so configured); the token is in the
  // form and in `Authorization: Token …` — the form's is checked, the header must agree when given.
  router.post(
    '/integrations/mattermost/commands/:ws',
    ...formOrJsonBody({ limitBytes: limit }),
    async (req, res) => {
      const slug = parseInput(WorkspaceSlugSchema, req.params.ws, 'workspace slug');
      const command = parseBody(MattermostSlashCommandSchema, req);
      const header = /^Token\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const token = header !== undefined && header !== command.token ? '' : command.token;
      res.json(await runSlashCommand(deps, slug, { ...command, token }, String(res.locals.requestId)));
    },
  );

  return router;
}
