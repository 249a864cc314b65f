import { AppError, ErrorCode, SAVE_AGENT_TOOL, SaveAgentToolInputSchema, type Approval, type ApprovalDetail, type ProposalEval, type SaveAgentToolInput } from '@switchyard/contracts';
import { specHash } from '@switchyard/core';
import type { AgentRecord, AgentStore, StoredAgentSpec } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { EvalStore } from '../eval-ports';
import type { AgentCommandContext, AgentRegistry } from './agent-registry';

/** How many of the agent's newest eval runs a proposal's eval is looked for in. */
const RECENT_EVALS = 100;

/**
 * Governed self-improvement (decision 0058): an agent token may try,
 * evaluate and save `target` only when the target's latest spec says
 * `selfImprovement.allow` and the caller is the target itself or one of its
 * `managers`. People are not concerned (their role is checked by the route).
 */
export function assertMayImprove(principal: Principal, target: Pick<AgentRecord, 'id' | 'spec'>): void {
  const caller = principal.agent?.agentId;
  if (caller === undefined) return;
  const rule = target.spec.selfImprovement;
  if (rule?.allow && (caller === target.id || rule.managers.includes(caller))) return;
  throw new AppError(ErrorCode.SELF_IMPROVEMENT_NOT_ALLOWED, "this agent's owner does not allow the calling agent to try, evaluate or save it (spec selfImprovement)", { id: target.id });
}

/** The draft as evals and proposals hash it: the stored spec, without the flag. */
export function draftHash(spec: StoredAgentSpec & { enabled?: boolean }): string {
  const { enabled: _enabled, ...stored } = spec;
  return specHash(stored);
}

/** What saving and explaining proposals need. */
export interface SelfImprovementDeps {
  agents: Pick<AgentStore, 'get'>;
  evals: Pick<EvalStore, 'listRuns' | 'useSaveApproval'>;
  registry: Pick<AgentRegistry, 'update'>;
}

/**
 * `save_agent`: the agent's next version, the flag untouched. A person saves
 * at once (as `PUT /agents/{id}`). An agent saves only with an approval a
 * person gave: the runner parks every `platform.save_agent` call, and here
 * the calling run must hold an approved, unused approval of that tool whose
 * preview is these very arguments — used (at most once) in the same step, so
 * a replayed call saves nothing. Nothing a tool returned can stand in for it.
 */
export class SaveAgent {
  constructor(private readonly deps: SelfImprovementDeps) {}

  async save(ctx: AgentCommandContext, input: SaveAgentToolInput, sent: Record<string, unknown>): Promise<{ id: string; version: number; approvalId: string | null }> {
    const { principal } = ctx;
    const target = await this.deps.agents.get(principal.workspaceId, input.agentId);
    if (!target) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: input.agentId });
    assertMayImprove(principal, target);
    const { enabled: _enabled, ...spec } = input.spec;
    let approvalId: string | null = null;
    if (principal.agent) {
      approvalId = await this.deps.evals.useSaveApproval(principal.workspaceId, principal.agent.runId, JSON.stringify(sent));
      if (!approvalId) throw new AppError(ErrorCode.SAVE_AGENT_NOT_APPROVED, 'no person approved this save_agent call of this run (each approval saves once)', { id: input.agentId });
    }
    const saved = await this.deps.registry.update(ctx, input.agentId, spec, undefined, undefined);
    return { id: saved.id, version: saved.version, approvalId };
  }

  /** The approval with, for a `platform.save_agent` call, the eval of the proposed spec (or a note that there is none). */
  async detail(workspaceId: string, approval: Approval): Promise<ApprovalDetail> {
    if (approval.tool?.name !== SAVE_AGENT_TOOL) return approval;
    return { ...approval, proposalEval: await this.proposalEval(workspaceId, approval) };
  }

  private async proposalEval(workspaceId: string, approval: Approval): Promise<ProposalEval> {
    if (approval.truncated) return { evalId: null, note: "the proposed spec is longer than the approval's preview: read the call in the run's transcript" };
    const proposed = SaveAgentToolInputSchema.safeParse(safeJson(approval.argumentsPreview));
    if (!proposed.success) return { evalId: null, note: 'the call does not name an agent and a valid spec' };
    const hash = draftHash(proposed.data.spec);
    const runs = await this.deps.evals.listRuns(workspaceId, proposed.data.agentId, RECENT_EVALS);
    const found = runs.find((run) => run.status === 'completed' && run.targets.at(-1)?.specHash === hash);
    if (!found) return { evalId: null, note: 'no completed eval run compares this draft with the version that runs: the person decides without one' };
    return { evalId: found.id, passed: found.result!.passed, failingCases: found.result!.failingCases, diff: found.result!.diff };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
