import { AppError, ErrorCode, type ListAgentTriesQuery, type ListAgentTriesResponseSchema, type RunWouldHaveResponseSchema } from '@switchyard/contracts';
import type { z } from 'zod';
import { toRunResponse } from '../api-views';
import type { AgentStore } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { RunStore } from '../run-ports';
import type { TryStore } from '../try-ports';

/** What reading tries needs. */
export interface ReadTriesDeps {
  tries: TryStore;
  agents: Pick<AgentStore, 'get'>;
  runs: Pick<RunStore, 'get'>;
}

/**
 * The tries kept under an agent's or a draft's id, newest first, each with
 * the exact spec it ran (decision 0027), for `GET /agents/{id}/tries`. An id
 * that is neither a live agent of the workspace nor a draft with tries in it
 * is AGENT_NOT_FOUND (another workspace's agent included).
 */
export async function listTries(
  deps: ReadTriesDeps,
  principal: Principal,
  agentId: string,
  query: ListAgentTriesQuery,
): Promise<z.infer<typeof ListAgentTriesResponseSchema>> {
  const page = await deps.tries.list(principal.workspaceId, agentId, query);
  if (page.length === 0 && query.after === undefined && !(await deps.agents.get(principal.workspaceId, agentId))) {
    throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent (or draft with tries) in this workspace', { id: agentId });
  }
  return {
    tries: page.map((t) => ({ run: toRunResponse(t.run, principal), version: t.version, spec: t.spec })),
    nextCursor: page.length === query.limit ? page.at(-1)!.run.id : null,
  };
}

/** The calls a run did not execute, in order, for `GET /runs/{id}/would-have`: empty for a run that is not a try. */
export async function readWouldHave(deps: ReadTriesDeps, principal: Principal, runId: string): Promise<z.infer<typeof RunWouldHaveResponseSchema>> {
  if (!(await deps.runs.get(principal.workspaceId, runId))) {
    throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id: runId });
  }
  return { runId, wouldHave: await deps.tries.wouldHave(principal.workspaceId, runId) };
}
