import { Router, type Request, type Response } from 'express';
import {
  AgentIdSchema,
  AgentVersionParamSchema,
  AppError,
  CreateAgentRequestSchema,
  EnableAgentRequestSchema,
  ErrorCode,
  IfMatchSchema,
  ListAgentsQuerySchema,
  ListAgentVersionsQuerySchema,
  UpdateAgentRequestSchema,
} from '@switchyard/contracts';
import { toAgentResponse } from '../api-views';
import { AgentRegistry, type AgentCommandContext } from '../commands/agent-registry';
import type { EvalGateCheck } from '../commands/eval-gate';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import type { AgentRecord, AgentStore, AgentUsageReader } from '../agent-ports';
import type { FactFlusher } from '../fact-ports';
import { getAgent, listAgents } from '../workspace-queries';

/** What the agents routes need. */
export interface AgentsRoutesDeps {
  agents: AgentStore;
  /** Today's spend and queued runs, shown with the agents on reads. */
  agentUsage: AgentUsageReader;
  outbox: FactFlusher;
  /** The promotion gate enabling passes (decision 0058). */
  evalGate: Pick<EvalGateCheck, 'check'>;
}

/** Sends an agent with its version as the entity tag, so `If-Match` can echo it. */
function sendAgent(res: Response, status: number, agent: AgentRecord): void {
  res.status(status).setHeader('ETag', `"${agent.version}"`).json(toAgentResponse(agent, principalOf(res)));
}

const agentIdOf = (req: Request) => parseInput(AgentIdSchema, req.params.id, 'agent id');
const notFound = (id: string) => new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id });
const contextOf = (res: Response): AgentCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/** The version `If-Match` names; undefined when absent or `*`. Malformed → 400. */
function ifMatchOf(req: Request): number | undefined {
  const header = req.headers['if-match'];
  return header === undefined ? undefined : parseInput(IfMatchSchema, header, 'If-Match header');
}

/**
 * The agent registry under `/v1/workspaces/{ws}/agents`: viewers read,
 * members write (AgentRegistry: every save of a changed spec is a new
 * immutable version, recorded with its facts). A deleted agent is 404
 * (with its `deletedAt`), but its versions stay readable.
 */
export function agentsRoutes(deps: AgentsRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  const registry = new AgentRegistry(deps.agents, deps.outbox, deps.evalGate);
  router.use('/agents', requireRole('viewer'));
  const write = requireRole('member');

  router.post('/agents', write, async (req, res) => {
    const { enabled, ...spec } = parseBody(CreateAgentRequestSchema, req);
    sendAgent(res, 201, await registry.create(contextOf(res), spec, enabled ?? true));
  });

  router.get('/agents', async (req, res) => {
    const query = parseQuery(ListAgentsQuerySchema, req);
    res.json(await listAgents(deps, principalOf(res), query));
  });

  router.get('/agents/:id', async (req, res) => {
    const agent = await getAgent(deps, principalOf(res), agentIdOf(req));
    res.setHeader('ETag', `"${agent.version}"`).json(agent);
  });

  router.put('/agents/:id', write, async (req, res) => {
    const id = agentIdOf(req);
    const ifMatch = ifMatchOf(req);
    const { enabled, ...spec } = parseBody(UpdateAgentRequestSchema, req);
    sendAgent(res, 200, await registry.update(contextOf(res), id, spec, enabled, ifMatch));
  });

  router.post('/agents/:id/enable', write, async (req, res) => {
    // The body is optional: only an admin's eval-gate override (decision 0058) goes in it.
    const body = parseBody(EnableAgentRequestSchema, req);
    sendAgent(res, 200, await registry.setEnabled(contextOf(res), agentIdOf(req), true, body.overrideEvalGate));
  });

  router.post('/agents/:id/disable', write, async (req, res) => {
    sendAgent(res, 200, await registry.setEnabled(contextOf(res), agentIdOf(req), false));
  });

  router.delete('/agents/:id', write, async (req, res) => {
    await registry.delete(contextOf(res), agentIdOf(req));
    res.status(204).end();
  });

  router.get('/agents/:id/versions', async (req, res) => {
    const id = agentIdOf(req);
    const query = parseQuery(ListAgentVersionsQuerySchema, req);
    const versions = await deps.agents.listVersions(principalOf(res).workspaceId, id, query);
    if (!versions) throw notFound(id);
    res.json({
      versions: versions.map((v) => ({ agentId: id, ...v, createdAt: v.createdAt.toISOString() })),
      nextCursor: versions.length === query.limit ? versions.at(-1)!.version : null,
    });
  });

  router.get('/agents/:id/versions/:version', async (req, res) => {
    const id = agentIdOf(req);
    const version = parseInput(AgentVersionParamSchema, req.params.version, 'version');
    const workspaceId = principalOf(res).workspaceId;
    const found = await deps.agents.getVersion(workspaceId, id, version);
    if (!found.ok) {
      if (found.reason === 'agent_not_found') throw notFound(id);
      throw new AppError(ErrorCode.AGENT_VERSION_NOT_FOUND, 'the agent has no such version', { id, version });
    }
    res.json({ ...found.version, createdAt: found.version.createdAt.toISOString() });
  });

  return router;
}
