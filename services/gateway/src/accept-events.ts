import { AppError, ErrorCode, type AcceptedFact, type PostEventRequest } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { factContentHash, IdempotencyKeyReusedError, type IngestResult, type ReusedKey } from '@switchyard/redis';
import { actorOf } from './change-author';
import type { Principal } from './auth-ports';
import type { FactReader, IngestWriter } from './fact-ports';

/** What acceptEvents needs. */
export interface AcceptEventsDeps {
  reader: Pick<FactReader, 'findByIdempotencyKeys'>;
  ingest: IngestWriter;
}

/** Per request, in order: the fact's id and whether it was accepted now or an earlier one's key. */
export type AcceptEventResult = { id: string; status: 'accepted' | 'duplicate' };

/**
 * The fact a producer's request becomes. The platform states who posted it,
 * from the token, whatever the request said (decision 0018): a person's token
 * makes the actor the member (their user id); an agent token makes it the
 * agent and the cause its run, one step deeper (the matcher's depth cap and
 * self-cause skip rely on it). The request's own claim stays `statedActor`.
 */
export function toAcceptedFact(principal: Principal, request: PostEventRequest, ts: string): AcceptedFact {
  const { actor: _refusedAtTheDoor, ...stated } = request;
  const fact: AcceptedFact = { id: newId(), workspace: principal.workspaceSlug, workspaceId: principal.workspaceId, ...stated, ts };
  fact.actor = actorOf(principal);
  const agent = principal.agent;
  if (agent) fact.causedBy = { runId: agent.runId, agentId: agent.agentId, depth: agent.depth + 1 };
  return fact;
}

/**
 * Accepts facts into `ingest` for `POST /events`, `events:batch` and the MCP
 * tool `emit_event`, all or nothing (see acceptFacts).
 */
export async function acceptEvents(
  deps: AcceptEventsDeps,
  principal: Principal,
  requests: readonly PostEventRequest[],
  correlationId: string,
): Promise<AcceptEventResult[]> {
  const ts = new Date().toISOString();
  const facts = requests.map((request) => toAcceptedFact(principal, request, ts));
  return acceptFacts(deps, { id: principal.workspaceId, slug: principal.workspaceSlug }, facts, correlationId);
}

/**
 * Accepts built facts of one workspace into `ingest`, all or nothing: a
 * producer's requests, a webhook's delivery. A key already stored in
 * PostgreSQL (older than Redis remembers) resolves to the stored id before
 * anything is written; a key claimed in Redis resolves there atomically.
 * Either way a key that holds another content (kind, subject, actor, stated
 * actor, payload) refuses the whole request with IDEMPOTENCY_KEY_REUSED
 * (decision 0003).
 */
export async function acceptFacts(
  deps: AcceptEventsDeps,
  workspace: { id: string; slug: string },
  facts: readonly AcceptedFact[],
  correlationId: string,
): Promise<AcceptEventResult[]> {
  const keys = facts.flatMap((f) => (f.idempotencyKey === undefined ? [] : [f.idempotencyKey]));
  const stored = await deps.reader.findByIdempotencyKeys(workspace, keys);
  const results: AcceptEventResult[] = new Array(facts.length);
  const fresh: Array<{ index: number; fact: AcceptedFact }> = [];
  facts.forEach((fact, index) => {
    const original = fact.idempotencyKey === undefined ? undefined : stored.get(fact.idempotencyKey);
    if (!original) fresh.push({ index, fact });
    else if (factContentHash(original) === factContentHash(fact)) results[index] = { id: original.id, status: 'duplicate' };
    else throw reusedKey(facts, { index, id: original.id });
  });
  let accepted: IngestResult[];
  try {
    accepted = await deps.ingest.accept(fresh.map(({ fact }) => ({ fact, correlationId })), { reusedKey: 'refuse' });
  } catch (error) {
    if (!(error instanceof IdempotencyKeyReusedError)) throw error;
    const { reused } = error;
    const index = fresh[reused.index]!.index;
    throw reusedKey(facts, 'id' in reused ? { index, id: reused.id } : { index, earlierIndex: fresh[reused.earlierIndex]!.index });
  }
  accepted.forEach((result, i) => (results[fresh[i]!.index] = result));
  return results;
}

/** The 409 for a reused key: its fact's index and the original fact's id (or the earlier fact's index). */
function reusedKey(facts: readonly AcceptedFact[], reused: ReusedKey): AppError {
  const idempotencyKey = facts[reused.index]!.idempotencyKey;
  const message =
    'id' in reused
      ? `idempotencyKey ${JSON.stringify(idempotencyKey)} already recorded a fact with another content`
      : `idempotencyKey ${JSON.stringify(idempotencyKey)} is used by two facts of this batch with different contents`;
  return new AppError(ErrorCode.IDEMPOTENCY_KEY_REUSED, message, { ...reused, idempotencyKey });
}
