import { Router, type Request, type Response } from 'express';
import { PostTeammateMessageRequestSchema, SpawnTeammateRequestSchema, TeammateNameSchema, TeamNameSchema, TranscriptQuerySchema } from '@switchyard/contracts';
import { readTeammateTranscript, type ReadTranscriptDeps } from '../commands/read-transcript';
import { getTeammate, postTeammateMessage, spawnTeammate, stopTeammate, type TeammateCommandContext, type TeammateDeps } from '../commands/teammates';
import { getTeam, listTeams } from '../commands/teams';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';

const nameOf = (req: Request) => parseInput(TeammateNameSchema, req.params.name, 'teammate name');
const contextOf = (res: Response): TeammateCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/**
 * The teammates roster under `/v1/workspaces/{ws}/teammates` (decision 0035):
 * viewers read (the roster, a teammate's conversation), members spawn, stop and message; `/teams` reads the roster by team. Scoped by the token's
 * workspace: another workspace's teammate is a 404.
 */
export function teammatesRoutes(deps: TeammateDeps & Pick<ReadTranscriptDeps, 'transcripts'>): Router {
  const router = Router({ mergeParams: true });
  router.use('/teammates', requireRole('viewer'));
  router.use('/teams', requireRole('viewer'));
  const write = requireRole('member');

  router.get('/teammates', async (_req, res) => {
    res.json({ teammates: await deps.teammates.list(principalOf(res).workspaceId) });
  });

  router.post('/teammates', write, async (req, res) => {
    const request = parseBody(SpawnTeammateRequestSchema, req);
    const mate = await spawnTeammate(deps, contextOf(res), request);
    res.status(201).setHeader('Location', `/v1/workspaces/${principalOf(res).workspaceSlug}/teammates/${mate.name}`).json(mate);
  });

  router.get('/teammates/:name', async (req, res) => {
    res.json(await getTeammate(deps, principalOf(res), nameOf(req)));
  });

  // Its whole conversation: the session's transcript across turns (decision 0052).
  router.get('/teammates/:name/transcript', async (req, res) => {
    const name = nameOf(req);
    res.json(await readTeammateTranscript(deps, principalOf(res), name, parseQuery(TranscriptQuerySchema, req)));
  });

  router.post('/teammates/:name/stop', write, async (req, res) => {
    res.json(await stopTeammate(deps, contextOf(res), nameOf(req)));
  });

  router.post('/teammates/:name/messages', write, async (req, res) => {
    const name = nameOf(req);
    const { content } = parseBody(PostTeammateMessageRequestSchema, req);
    res.status(202).json(await postTeammateMessage(deps, contextOf(res), name, content));
  });

  // Teams (decision 0059): the teammates sharing a `team`, read from the roster.
  router.get('/teams', async (_req, res) => {
    res.json({ teams: await listTeams(deps, principalOf(res)) });
  });

  router.get('/teams/:name', async (req, res) => {
    res.json(await getTeam(deps, principalOf(res), parseInput(TeamNameSchema, req.params.name, 'team name')));
  });

  return router;
}
