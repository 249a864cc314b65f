import { AppError, ErrorCode, type AgentResponse, type CursorExpiredDetails, type Fact, type Run } from '@switchyard/contracts';
import { toAgentResponse, toRunResponse } from './api-views';
import type { AgentStore, AgentUsageReader } from './agent-ports';
import type { Principal } from './auth-ports';
import type { FactReader } from './fact-ports';
import type { RunListFilter, RunStore } from './run-ports';

/*
 * The workspace reads, answered the same way to the REST routes and to the
 * platform MCP tools. Every one is scoped by the principal's workspace: an id
 * of another workspace is simply not found.
 */

/**
 * A page of facts: oldest first after a `seq` cursor, or newest first before one (`order=desc`);
 * `nextCursor` is the last seq of the page. Paging forward, a cursor behind the retention horizon
 * is CURSOR_EXPIRED (410, with the oldest kept seq): facts after it were purged and the caller must
 * know it missed them (decision 0041); `after = 0` means "from the oldest fact kept". Paging back
 * simply ends at the oldest fact kept.
 */
export async function listEvents(
  reader: Pick<FactReader, 'listAfter' | 'listBefore' | 'purgedThrough'>,
  principal: Principal,
  query: { after: number; kind?: string; limit: number; order?: 'asc' | 'desc'; before?: number },
): Promise<{ events: Fact[]; nextCursor: number }> {
  const workspace = { id: principal.workspaceId, slug: principal.workspaceSlug };
  if (query.order === 'desc') {
    const events = await reader.listBefore(workspace, query.before, { kindGlob: query.kind, limit: query.limit, afterSeq: query.after });
    return { events, nextCursor: events.at(-1)?.seq ?? query.before ?? 0 };
  }
  const from = await keptCursor(reader, principal.workspaceId, query.after);
  const events = await reader.listAfter(workspace, from, { kindGlob: query.kind, limit: query.limit, uptoSeq: query.before === undefined ? undefined : query.before - 1 });
  return { events, nextCursor: events.at(-1)?.seq ?? from };
}

/**
 * Where reading after `after` starts once retention purged through a seq: `after` itself when it
 * is at or past it; the horizon for 0 (from the start: the oldest kept); CURSOR_EXPIRED otherwise.
 */
export async function keptCursor(reader: Pick<FactReader, 'purgedThrough'>, workspaceId: string, after: number): Promise<number> {
  const purged = await reader.purgedThrough(workspaceId);
  if (after >= purged) return after;
  if (after === 0) return purged;
  throw new AppError(ErrorCode.CURSOR_EXPIRED, 'the cursor is behind the retention horizon: facts after it were purged', {
    after,
    oldestSeq: purged + 1,
  } satisfies CursorExpiredDetails);
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
