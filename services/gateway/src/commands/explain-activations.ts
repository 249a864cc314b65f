import { ACTIVATION_SKIP_REASONS, AgentSpecSchema, AppError, ErrorCode, type AgentActivation, type EventActivationsResponse, type Fact } from '@switchyard/contracts';
import { explainFilter, matchesKindGlob } from '@switchyard/core';
import type { ActivationReads, AgentFactState } from '../activation-ports';
import type { Principal } from '../auth-ports';
import type { FactReader } from '../fact-ports';

/** What explaining a fact's activations needs. */
export interface ExplainActivationsDeps {
  reader: Pick<FactReader, 'get'>;
  activationReads: ActivationReads;
}

/**
 * "Why did my agent (not) run?" for one fact of the caller's workspace: per
 * agent, its runs, or the guard that skipped it, or why no trigger of the
 * version in force matched (each trigger: its kind, or the filter clause that
 * failed with the value seen). Another workspace's fact is EVENT_NOT_FOUND.
 */
export async function explainActivations(deps: ExplainActivationsDeps, principal: Principal, eventId: string): Promise<EventActivationsResponse> {
  const fact = await deps.reader.get({ id: principal.workspaceId, slug: principal.workspaceSlug }, eventId);
  if (!fact) throw new AppError(ErrorCode.EVENT_NOT_FOUND, 'no such event in this workspace', { id: eventId });
  const [{ matcherSeq, agents }, firedBy] = await Promise.all([
    deps.activationReads.activationsOf(principal.workspaceId, fact),
    deps.activationReads.fireOf(principal.workspaceId, fact.id),
  ]);
  const explained = { eventId: fact.id, kind: fact.kind, seq: fact.seq, agents: agents.map((agent) => explainOne(agent, fact, matcherSeq)) };
  return firedBy ? { ...explained, firedBy } : explained;
}

function explainOne(agent: AgentFactState, fact: Fact, matcherSeq: number): AgentActivation {
  const base = { agentId: agent.agentId, agentName: agent.name, agentVersion: agent.inForce?.version ?? null };
  if (agent.runs.length > 0) return { ...base, agentVersion: agent.runs[0]!.agentVersion, outcome: 'activated', runs: agent.runs };
  if (agent.skip) return { ...base, agentVersion: agent.skip.agentVersion, outcome: 'skipped', reason: agent.skip.reason };
  if (!agent.inForce) return { ...base, outcome: 'not_created_yet' };
  const spec = AgentSpecSchema.safeParse(agent.inForce.spec);
  // A stored spec that no longer parses activated nothing (the matcher skips it too).
  const triggers = spec.success ? spec.data.triggers : [];
  const misses = triggers.map((trigger, index) => {
    const kindMatched = matchesKindGlob(trigger.kind, fact.kind);
    const filter = kindMatched && trigger.filter ? explainFilter(trigger.filter, fact) : null;
    return { index, kind: trigger.kind, kindMatched, ...(filter ? { filter } : {}) };
  });
  if (misses.some((miss) => miss.kindMatched && !miss.filter)) {
    // The matcher's index holds enabled agents only: a disabled one matches nothing and records nothing.
    if (!agent.inForce.enabled) return { ...base, outcome: 'skipped', reason: ACTIVATION_SKIP_REASONS.disabled };
    return { ...base, outcome: matcherSeq < fact.seq ? 'pending' : 'unrecorded' };
  }
  return { ...base, outcome: 'no_match', triggers: misses };
}
