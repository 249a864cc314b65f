import { Router, type Request, type Response } from 'express';
import {
  AGENT_FACT_KINDS,
  AgentIdSchema,
  AgentVersionParamSchema,
  AppError,
  CreateAgentRequestSchema,
  ErrorCode,
  IfMatchSchema,
  ListAgentsQuerySchema,
  ListAgentVersionsQuerySchema,
  UpdateAgentRequestSchema,
  type AcceptedFact,
  type AgentFactKind,
  type AgentFactPayload,
} from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { toAgentResponse } from '../api-views';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';
import type { AgentRecord, AgentStore, IngestWriter } from '../ports';
import { getAgent, listAgents } from '../workspace-queries';

/** What the agents routes need. */
export interface AgentsRoutesDeps {
  agents: AgentStore;
  ingest: IngestWriter;
  log: Logger;
}

/** Sends an agent with its version as the entity tag, so `If-Match` can echo it. */
function sendAgent(res: Response, status: number, agent: AgentRecord): void {
  res.status(status).setHeader('ETag', `"${agent.version}"`).json(toAgentResponse(agent, principalOf(res)));
}

const agentIdOf = (req: Request) => parseInput(AgentIdSchema, req.params.id, 'agent id');
const notFound = (id: string) => new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id });

/** The version `If-Match` names; undefined when absent or `*`. Malformed → 400. */
function ifMatchOf(req: Request): number | undefined {
  const header = req.headers['if-match'];
  return header === undefined ? undefined : parseInput(IfMatchSchema, header, 'If-Match header');
}

/**
 * Records `agent.*` facts for a change that is already committed. A failure
 * here cannot undo the change, so it is logged rather than returned: answering
 * 5xx would make the client retry a write that succeeded. The trade-off (a
 * crash between commit and this call loses the notification) is in
 * docs/decisions/0007-agent-registry.md.
 */
async function emit(
  deps: AgentsRoutesDeps,
  res: Response,
  kinds: AgentFactKind[],
  agent: { id: string; name: string; version: number; enabled: boolean },
): Promise<void> {
  const principal = principalOf(res);
  const ts = new Date().toISOString();
  const payload: AgentFactPayload = { version: agent.version, name: agent.name, enabled: agent.enabled };
  const facts: AcceptedFact[] = kinds.map((kind) => ({
    id: newId(),
    workspace: principal.workspaceSlug,
    workspaceId: principal.workspaceId,
    kind,
    subject: { type: 'agent', id: agent.id },
    actor: { type: 'user', id: principal.userId },
    payload,
    ts,
  }));
  try {
    await deps.ingest.accept(facts.map((fact) => ({ fact, correlationId: String(res.locals.requestId) })));
  } catch (error) {
    deps.log.error({ err: error, agentId: agent.id, kinds, version: agent.version }, 'agent change committed but its fact was not recorded');
  }
}

/**
 * The agent registry under `/v1/workspaces/{ws}/agents`: viewers read,
 * members write. Every save of a changed spec is a new immutable version; the
 * database write commits before its fact is recorded. A deleted agent is 404
 * (with its `deletedAt`), but its versions stay readable.
 */
export function agentsRoutes(deps: AgentsRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.use('/agents', requireRole('viewer'));
  const write = requireRole('member');

  router.post('/agents', write, async (req, res) => {
    const { enabled, ...spec } = parseBody(CreateAgentRequestSchema, req);
    const principal = principalOf(res);
    const created = await deps.agents.create({ workspaceId: principal.workspaceId, userId: principal.userId, spec, enabled: enabled ?? true });
    if (!created.ok) throw new AppError(ErrorCode.AGENT_NAME_TAKEN, 'another agent of this workspace has that name', { name: spec.name });
    await emit(deps, res, [AGENT_FACT_KINDS.created], created.agent);
    sendAgent(res, 201, created.agent);
  });

  router.get('/agents', async (req, res) => {
    const query = parseQuery(ListAgentsQuerySchema, req);
    res.json(await listAgents(deps.agents, principalOf(res), query));
  });

  router.get('/agents/:id', async (req, res) => {
    const agent = await getAgent(deps.agents, principalOf(res), agentIdOf(req));
    res.setHeader('ETag', `"${agent.version}"`).json(agent);
  });

  router.put('/agents/:id', write, async (req, res) => {
    const id = agentIdOf(req);
    const ifMatch = ifMatchOf(req);
    const { enabled, ...spec } = parseBody(UpdateAgentRequestSchema, req);
    const principal = principalOf(res);
    const result = await deps.agents.update({ workspaceId: principal.workspaceId, id, userId: principal.userId, spec, enabled, ifMatch });
    if (!result.ok) {
      if (result.reason === 'not_found') throw notFound(id);
      if (result.reason === 'name_taken') throw new AppError(ErrorCode.AGENT_NAME_TAKEN, 'another agent of this workspace has that name', { name: spec.name });
      throw new AppError(ErrorCode.AGENT_VERSION_CONFLICT, 'the agent changed since that version: read it again and retry', {
        id,
        expected: ifMatch,
        current: result.current,
      });
    }
    // An identical spec made no version: nothing was updated, though the flag may have flipped.
    const kinds: AgentFactKind[] = result.versionCreated ? [AGENT_FACT_KINDS.updated] : [];
    if (result.enabledChanged) kinds.push(result.agent.enabled ? AGENT_FACT_KINDS.enabled : AGENT_FACT_KINDS.disabled);
    if (kinds.length > 0) await emit(deps, res, kinds, result.agent);
    sendAgent(res, 200, result.agent);
  });

  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    router.post(`/agents/:id/${action}`, write, async (req, res) => {
      const id = agentIdOf(req);
      const result = await deps.agents.setEnabled(principalOf(res).workspaceId, id, enabled);
      if (!result) throw notFound(id);
      // Idempotent: only an actual flip is a change worth a fact.
      if (result.changed) await emit(deps, res, [enabled ? AGENT_FACT_KINDS.enabled : AGENT_FACT_KINDS.disabled], { ...result.agent, enabled });
      sendAgent(res, 200, result.agent);
    });
  }

  router.delete('/agents/:id', write, async (req, res) => {
    const id = agentIdOf(req);
    const deleted = await deps.agents.delete(principalOf(res).workspaceId, id);
    if (!deleted) throw notFound(id);
    await emit(deps, res, [AGENT_FACT_KINDS.deleted], { id, ...deleted, enabled: false });
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
