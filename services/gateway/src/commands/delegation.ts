import { AppError, DEFAULT_MAX_CHILDREN, DELEGATION_REFUSALS, ErrorCode, type DelegateToAgentToolInput, type DelegationRefusal, type DelegationRefusedDetails } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { AgentStore } from '../agent-ports';
import type { Mailbox } from '../mailbox-ports';
import type { RunRecord } from '../run-ports';
import type { RunCommandContext, RunLedger } from '../run-ledger';
import type { CollaboratorStore } from '../team-ports';
import { delegationMessage } from './delegation-message';

/** What delegation needs. */
export interface DelegationDeps {
  collaborators: CollaboratorStore;
  agents: Pick<AgentStore, 'get'>;
  ledger: Pick<RunLedger, 'startDelegated'>;
  mailbox: Mailbox;
}

/**
 * `delegate_to_agent` (decision 0032): a run's agent hands an objective to
 * itself or to an enabled collaborator, as a child run caused by the caller's
 * run (one step deeper: the depth cap and the causal stop apply). Anything
 * else is DELEGATION_REFUSED with the reason and the roster the caller may
 * delegate to, so a model can correct itself. The child is told the objective
 * by a message from the parent agent in its session's mailbox, read at its
 * first step; its result comes back to the parent's mailbox when it ends.
 */
export async function delegateToAgent(deps: DelegationDeps, ctx: RunCommandContext, input: DelegateToAgentToolInput): Promise<RunRecord> {
  const { principal } = ctx;
  const caller = principal.agent;
  if (!caller) throw new AppError(ErrorCode.FORBIDDEN, "delegate_to_agent needs a run's agent token", { required: 'agent token', actual: principal.role });
  const refuse = async (reason: DelegationRefusal, extra: { max?: number } = {}): Promise<never> => {
    const self = await deps.agents.get(principal.workspaceId, caller.agentId);
    const roster = (await deps.collaborators.enabledRoster(principal.workspaceId, caller.agentId)).map((agent) => ({ agentId: agent.id, name: agent.name, self: false }));
    if (self?.enabled) roster.unshift({ agentId: self.id, name: self.name, self: true });
    const details: DelegationRefusedDetails = { reason, target: input.target, roster, ...extra };
    throw new AppError(ErrorCode.DELEGATION_REFUSED, `delegation refused: ${reason}`, details);
  };
  const target = await deps.collaborators.findAgent(principal.workspaceId, input.target);
  if (!target) return refuse(DELEGATION_REFUSALS.targetNotFound);
  if (target.id !== caller.agentId) {
    const rule = await deps.collaborators.rule(principal.workspaceId, caller.agentId, target.id);
    if (rule === null) return refuse(DELEGATION_REFUSALS.notAllowed);
    if (!rule) return refuse(DELEGATION_REFUSALS.disabled);
  }
  if (!target.enabled) return refuse(DELEGATION_REFUSALS.targetDisabled);
  const parent = await deps.agents.get(principal.workspaceId, caller.agentId);
  // The fan-out cap (decision 0059): counted per parent run, taken before the child exists and given back if it is not started.
  const maxChildren = parent?.spec.budget.maxChildren ?? DEFAULT_MAX_CHILDREN;
  if (!(await deps.mailbox.takeDelegation(caller.runId, maxChildren))) return refuse(DELEGATION_REFUSALS.fanOutCap, { max: maxChildren });
  const origin = {
    type: 'delegation' as const,
    parentRunId: caller.runId,
    parentAgentId: caller.agentId,
    objective: input.objective,
    ...(input.context === undefined ? {} : { context: input.context }),
    userId: principal.userId,
  };
  try {
    return await startChild(deps, ctx, target.id, origin, parent?.name ?? 'delegating agent');
  } catch (error) {
    await deps.mailbox.releaseDelegation(caller.runId).catch(() => undefined);
    throw error;
  }
}

/** The child run, told its objective by a message from the parent agent in its new session's mailbox. */
function startChild(deps: DelegationDeps, ctx: RunCommandContext, targetId: string, origin: Extract<RunRecord['origin'], { type: 'delegation' }>, parentName: string): Promise<RunRecord> {
  const caller = ctx.principal.agent!;
  return deps.ledger.startDelegated(ctx, targetId, origin, async (run) => {
    const posted = await deps.mailbox.post({
      schemaVersion: 1,
      id: newId(),
      sessionId: run.sessionId,
      from: { type: 'teammate', agentId: caller.agentId, name: parentName },
      content: delegationMessage(origin),
      sentAt: new Date().toISOString(),
    });
    if (posted !== 'delivered') throw new Error('the new session mailbox is closed');
  });
}
