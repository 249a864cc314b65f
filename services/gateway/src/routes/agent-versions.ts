import { Router, type Request, type Response } from 'express';
import { AgentIdSchema, AgentVersionParamSchema, PinAgentRequestSchema, VersionTagSchema } from '@switchyard/contracts';
import { toAgentResponse } from '../api-views';
import type { AgentCommandContext } from '../commands/agent-registry';
import type { AgentVersions } from '../commands/agent-versions';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput } from '../http/validate';
import type { AgentRecord } from '../agent-ports';
import type { TagRecord } from '../version-ports';

const agentIdOf = (req: Request) => parseInput(AgentIdSchema, req.params.id, 'agent id');
const versionOf = (value: unknown, what = 'version') => parseInput(AgentVersionParamSchema, value, what);
const tagOf = (req: Request) => parseInput(VersionTagSchema, req.params.tag, 'tag');
const contextOf = (res: Response): AgentCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

function sendAgent(res: Response, agent: AgentRecord): void {
  res.setHeader('ETag', `"${agent.version}"`).json(toAgentResponse(agent, principalOf(res)));
}

const tagsView = (agentId: string, tags: TagRecord[]) => ({ agentId, tags: tags.map((t) => ({ ...t, setAt: t.setAt.toISOString() })) });

/**
 * Pins, tags and diffs of agent versions (decision 0046), under
 * `/v1/workspaces/{ws}/agents/{id}`: viewers read, members write.
 */
export function agentVersionsRoutes(deps: { agentVersions: AgentVersions }): Router {
  const router = Router({ mergeParams: true });
  const { agentVersions } = deps;
  const write = requireRole('member');
  router.use('/agents', requireRole('viewer'));

  router.put('/agents/:id/pin', write, async (req, res) => {
    const id = agentIdOf(req);
    const { version, overrideEvalGate } = parseBody(PinAgentRequestSchema, req);
    sendAgent(res, await agentVersions.pin(contextOf(res), id, version, overrideEvalGate));
  });

  router.delete('/agents/:id/pin', write, async (req, res) => {
    sendAgent(res, await agentVersions.pin(contextOf(res), agentIdOf(req), null));
  });

  router.get('/agents/:id/tags', async (req, res) => {
    const id = agentIdOf(req);
    res.json(tagsView(id, await agentVersions.listTags(contextOf(res), id)));
  });

  router.put('/agents/:id/versions/:version/tags/:tag', write, async (req, res) => {
    const id = agentIdOf(req);
    const version = versionOf(req.params.version);
    res.json(tagsView(id, await agentVersions.putTag(contextOf(res), id, version, tagOf(req))));
  });

  router.delete('/agents/:id/versions/:version/tags/:tag', write, async (req, res) => {
    const id = agentIdOf(req);
    const version = versionOf(req.params.version);
    res.json(tagsView(id, await agentVersions.deleteTag(contextOf(res), id, version, tagOf(req))));
  });

  router.get('/agents/:id/versions/:version/diff/:to', async (req, res) => {
    const id = agentIdOf(req);
    const from = versionOf(req.params.version);
    const to = versionOf(req.params.to, 'to version');
    res.json(await agentVersions.diff(contextOf(res), id, from, to));
  });

  return router;
}
