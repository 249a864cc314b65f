import { AppError, ErrorCode } from '@switchyard/contracts';
import { specHash } from '@switchyard/core';
import type { AgentRecord, StoredAgentSpec } from '../agent-ports';
import type { Principal } from '../auth-ports';

/**
 * Governed self-improvement (decision 0058): an agent token may try,
 * evaluate and save `target` only when the target's latest spec says
 * `selfImprovement.allow` and the caller is the target itself or one of its
 * `managers`. People are not concerned (their role is checked by the route).
 */
export function assertMayImprove(principal: Principal, target: Pick<AgentRecord, 'id' | 'spec'>): void {
  if (!actsAsAgent(principal)) return;
  const caller = principal.agent!.agentId;
  const rule = target.spec.selfImprovement;
  if (rule?.allow && (caller === target.id || rule.managers.includes(caller))) return;
  throw new AppError(ErrorCode.SELF_IMPROVEMENT_NOT_ALLOWED, "this agent's owner does not allow the calling agent to try, evaluate or save it (spec selfImprovement)", { id: target.id });
}

/** Whether an agent, not a person, is acting: a crafting turn's token acts for its person (decision 0056). */
export function actsAsAgent(principal: Principal): boolean {
  return principal.agent !== undefined && !principal.crafting;
}

/** The draft as evals and proposals hash it: the stored spec, without the flag. */
export function draftHash(spec: StoredAgentSpec & { enabled?: boolean }): string {
  const { enabled: _enabled, ...stored } = spec;
  return specHash(stored);
}
