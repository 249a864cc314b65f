import { AppError, ErrorCode, type AgentResponse, type Fact, type Run } from '@switchyard/contracts';
import { toAgentResponse, toRunResponse } from './api-views';
import type { AgentStore, AgentUsageReader, FactReader, Principal, RunListFilter, RunStore } from './ports';

/*
 * The workspace reads, answered the same way to the REST routes and to the
 * platform MCP tools. Every one is scoped by the principal's workspace: an id
 * of another workspace is simply not found.
 */

/** A page of facts: oldest first after a `seq` cursor, or newest first before one (`order=desc`); `nextCursor` is the last seq of the page. */
export async function listEvents(
  reader: Pick<FactReader, 'listAfter' | 'listBefore'>,
  principal: Principal,
  query: { after: number; kind?: string; limit: number; order?: 'asc' | 'desc'; before?: number },
): Promise<{ events: Fact[]; nextCursor: number }> {
  const workspace = { id: principal.workspaceId, slug: principal.workspaceSlug };
  if (query.order === 'desc') {
    const events = await reader.listBefore(workspace, query.before, { kindGlob: query.kind, limit: query.limit, afterSeq: query.after });
    return { events, nextCursor: events.at(-1)?.seq ?? query.before ?? 0 };
  }
  const events = await reader.listAfter(workspace, query.after, { kindGlob: query.kind, limit: query.limit, uptoSeq: query.before === undefined ? undefined : query.before - 1 });
  return { events, nextCursor: events.at(-1)?.seq ?? query.after };
}

/** One fact; EVENT_NOT_FOUND when the workspace has none with that id. */
export async function getEvent(reader: Pick<FactReader, 'get'>, principal: Principal, id: string): Promise<Fact> {
  const fact = await reader.get({ id: principal.workspaceId, slug: principal.workspaceSlug }, id);
  if (!fact) throw new AppError(ErrorCode.EVENT_NOT_FOUND, 'no such event in this workspace', { id });
  return fact;
}

/** A page of runs, newest first; `nextCursor` is null on the last page. */
export async function listRuns(
  runs: Pick<RunStore, 'list'>,
  principal: Principal,
  query: RunListFilter & { after?: string; limit: number },
): Promise<{ runs: Run[]; nextCursor: string | null }> {
  const page = await runs.list(principal.workspaceId, query);
  return {
    runs: page.map((run) => toRunResponse(run, principal)),
    nextCursor: page.length === query.limit ? page.at(-1)!.id : null,
  };
}

/** One run; RUN_NOT_FOUND when the workspace has none with that id. */
export async function getRun(runs: Pick<RunStore, 'get'>, principal: Principal, id: string): Promise<Run> {
  const run = await runs.get(principal.workspaceId, id);
  if (!run) throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id });
  return toRunResponse(run, principal);
}

/** A page of live agents in creation order; `nextCursor` is null on the last page. */
export async function listAgents(
  deps: { agents: Pick<AgentStore, 'list'>; agentUsage: AgentUsageReader },
  principal: Principal,
  query: { after?: string; limit: number },
): Promise<{ agents: AgentResponse[]; nextCursor: string | null }> {
  const page = await deps.agents.list(principal.workspaceId, query);
  const usage = await deps.agentUsage.usageOf(principal.workspaceId, page.map((agent) => agent.id));
  return {
    agents: page.map((agent) => ({ ...toAgentResponse(agent, principal), usage: usage.get(agent.id) ?? NO_USAGE })),
    nextCursor: page.length === query.limit ? page.at(-1)!.id : null,
  };
}

const NO_USAGE = { spentTodayUsd: 0, queuedRuns: 0 };

/**
 * One live agent with its latest spec; AGENT_NOT_FOUND when the workspace has
 * no live agent with that id. For a deleted one the error's details carry its
 * `deletedAt`, so an audit tells "deleted" from "never existed" (its versions
 * and runs stay readable).
 */
export async function getAgent(
  deps: { agents: Pick<AgentStore, 'get' | 'deletedAt'>; agentUsage: AgentUsageReader },
  principal: Principal,
  id: string,
): Promise<AgentResponse> {
  const { agents } = deps;
  const agent = await agents.get(principal.workspaceId, id);
  if (!agent) {
    const deletedAt = await agents.deletedAt(principal.workspaceId, id);
    throw new AppError(ErrorCode.AGENT_NOT_FOUND, deletedAt ? 'this agent was deleted' : 'no such agent in this workspace', {
      id,
      ...(deletedAt ? { deletedAt: deletedAt.toISOString() } : {}),
    });
  }
  const usage = await deps.agentUsage.usageOf(principal.workspaceId, [id]);
  return { ...toAgentResponse(agent, principal), usage: usage.get(id) ?? NO_USAGE };
}
