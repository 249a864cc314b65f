import type { AcceptedFact, PostEventRequest } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { FactReader, IngestWriter, Principal } from './ports';

/** What acceptEvents needs. */
export interface AcceptEventsDeps {
  reader: Pick<FactReader, 'findByIdempotencyKeys'>;
  ingest: IngestWriter;
}

/** Per request, in order: the fact's id and whether it was accepted now or an earlier one's key. */
export type AcceptEventResult = { id: string; status: 'accepted' | 'duplicate' };

/**
 * The fact a producer's request becomes. With an agent token the platform
 * states who did it and why, whatever the request said: the actor is the
 * agent and the cause is its run, one step deeper (the matcher's depth cap
 * and self-cause skip rely on it).
 */
export function toAcceptedFact(principal: Principal, request: PostEventRequest, ts: string): AcceptedFact {
  const fact: AcceptedFact = { id: newId(), workspace: principal.workspaceSlug, workspaceId: principal.workspaceId, ...request, ts };
  const agent = principal.agent;
  if (agent) {
    fact.actor = { type: 'agent', id: agent.agentId };
    fact.causedBy = { runId: agent.runId, agentId: agent.agentId, depth: agent.depth + 1 };
  }
  return fact;
}

/**
 * Accepts facts into `ingest` for `POST /events`, `events:batch` and the MCP
 * tool `emit_event`. A key already stored in PostgreSQL (older than Redis
 * remembers) resolves to the stored id before anything is written; a key
 * claimed in Redis resolves there atomically.
 */
export async function acceptEvents(
  deps: AcceptEventsDeps,
  principal: Principal,
  requests: readonly PostEventRequest[],
  correlationId: string,
): Promise<AcceptEventResult[]> {
  const keys = requests.flatMap((r) => (r.idempotencyKey === undefined ? [] : [r.idempotencyKey]));
  const stored = await deps.reader.findByIdempotencyKeys(principal.workspaceId, keys);
  const results: AcceptEventResult[] = new Array(requests.length);
  const fresh: Array<{ index: number; fact: AcceptedFact }> = [];
  const ts = new Date().toISOString();
  requests.forEach((request, index) => {
    const storedId = request.idempotencyKey === undefined ? undefined : stored.get(request.idempotencyKey);
    if (storedId) results[index] = { id: storedId, status: 'duplicate' };
    else fresh.push({ index, fact: toAcceptedFact(principal, request, ts) });
  });
  const accepted = await deps.ingest.accept(fresh.map(({ fact }) => ({ fact, correlationId })));
  accepted.forEach((result, i) => (results[fresh[i]!.index] = result));
  return results;
}
