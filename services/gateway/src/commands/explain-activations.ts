import { ACTIVATION_SKIP_REASONS, AgentSpecSchema, AppError, ErrorCode, TeammateWatchSchema, type AgentActivation, type EventActivationsResponse, type Fact, type TeammateActivation, type Trigger } from '@switchyard/contracts';
import { explainFilter, matchesKindGlob } from '@switchyard/core';
import type { ActivationReads, AgentFactState, TeammateFactState } from '../activation-ports';
import type { Principal } from '../auth-ports';
import type { FactReader } from '../fact-ports';

/** What explaining a fact's activations needs. */
export interface ExplainActivationsDeps {
  reader: Pick<FactReader, 'get'>;
  activationReads: ActivationReads;
  maxCausationDepth: number;
}

/**
 * "Why did my agent (not) run?" for one fact of the caller's workspace: per
 * agent, its runs, or the guard that skipped it, or why no trigger of the
 * version in force matched (each trigger: its kind, or the filter clause that
 * failed with the value seen); and per teammate, whether its watch delivered
 * it or why not (decision 0059). Another workspace's fact is EVENT_NOT_FOUND.
 */
export async function explainActivations(deps: ExplainActivationsDeps, principal: Principal, eventId: string): Promise<EventActivationsResponse> {
  const fact = await deps.reader.get({ id: principal.workspaceId, slug: principal.workspaceSlug }, eventId);
  if (!fact) throw new AppError(ErrorCode.EVENT_NOT_FOUND, 'no such event in this workspace', { id: eventId });
  const [{ matcherSeq, agents }, teammates, firedBy] = await Promise.all([
    deps.activationReads.activationsOf(principal.workspaceId, fact),
    deps.activationReads.teammatesOf(principal.workspaceId, fact),
    deps.activationReads.fireOf(principal.workspaceId, fact.id),
  ]);
  const explained = {
    eventId: fact.id,
    kind: fact.kind,
    seq: fact.seq,
    agents: agents.map((agent) => explainOne(agent, fact, matcherSeq)),
    teammates: teammates.map((mate) => explainTeammate(mate, fact, matcherSeq, deps.maxCausationDepth)),
  };
  return firedBy ? { ...explained, firedBy } : explained;
}

/** Each trigger-shaped entry and why the fact missed it (its kind glob, or the failing filter clause). */
function missesOf(entries: readonly Trigger[], fact: Fact) {
  return entries.map((trigger, index) => {
    const kindMatched = matchesKindGlob(trigger.kind, fact.kind);
    const filter = kindMatched && trigger.filter ? explainFilter(trigger.filter, fact) : null;
    return { index, kind: trigger.kind, kindMatched, ...(filter ? { filter } : {}) };
  });
}

/**
 * The event bridge's decision for one teammate, in its guards' order (decision 0035):
 * what it recorded (a delivery), else its watch against the fact, then the guards it
 * applies — stopped, its own echo, self-cause, depth, the matched entry's cooldown —
 * evaluated on request from the roster, the fact and the deliveries before it.
 */
function explainTeammate(mate: TeammateFactState, fact: Fact, matcherSeq: number, maxDepth: number): TeammateActivation {
  const base = { teammateId: mate.teammateId, name: mate.name, team: mate.team };
  if (mate.delivery) return { ...base, outcome: 'delivered', ...mate.delivery };
  if (mate.spawnedAfter) return { ...base, outcome: 'not_spawned_yet' };
  const watch = TeammateWatchSchema.array().safeParse(mate.watch);
  const entries = watch.success ? watch.data : [];
  const misses = missesOf(entries, fact);
  const matched = entries.filter((_, index) => misses[index]!.kindMatched && !misses[index]!.filter);
  if (matched.length === 0) return { ...base, outcome: 'no_match', watch: misses };
  if (mate.stopped) return { ...base, outcome: 'skipped', reason: 'stopped' };
  if (matcherSeq < fact.seq) return { ...base, outcome: 'pending' };
  if (fact.kind === 'message.sent' && (fact.payload as { from?: unknown }).from === 'event') return { ...base, outcome: 'skipped', reason: 'event_echo' };
  if (mate.ownTurnCaused) return { ...base, outcome: 'skipped', reason: 'self_caused' };
  if (fact.causedBy && fact.causedBy.depth >= maxDepth) return { ...base, outcome: 'skipped', reason: 'depth_exceeded' };
  const cooldownMs = Math.max(...matched.map((entry) => entry.cooldownMs ?? 0));
  if (cooldownMs > 0 && mate.sinceLastOfKindMs !== null && mate.sinceLastOfKindMs < cooldownMs) return { ...base, outcome: 'skipped', reason: 'cooldown' };
  return { ...base, outcome: 'unrecorded' };
}

function explainOne(agent: AgentFactState, fact: Fact, matcherSeq: number): AgentActivation {
  const base = { agentId: agent.agentId, agentName: agent.name, agentVersion: agent.inForce?.version ?? null };
  if (agent.runs.length > 0) return { ...base, agentVersion: agent.runs[0]!.agentVersion, outcome: 'activated', runs: agent.runs };
  if (agent.skip) return { ...base, agentVersion: agent.skip.agentVersion, outcome: 'skipped', reason: agent.skip.reason };
  if (!agent.inForce) return { ...base, outcome: 'not_created_yet' };
  const spec = AgentSpecSchema.safeParse(agent.inForce.spec);
  // A stored spec that no longer parses activated nothing (the matcher skips it too).
  const triggers = spec.success ? spec.data.triggers : [];
  const misses = missesOf(triggers, fact);
  if (misses.some((miss) => miss.kindMatched && !miss.filter)) {
    // The matcher's index holds enabled agents only: a disabled one matches nothing and records nothing.
    if (!agent.inForce.enabled) return { ...base, outcome: 'skipped', reason: ACTIVATION_SKIP_REASONS.disabled };
    return { ...base, outcome: matcherSeq < fact.seq ? 'pending' : 'unrecorded' };
  }
  return { ...base, outcome: 'no_match', triggers: misses };
}
