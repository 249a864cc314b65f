import { AppError, ErrorCode, SAVE_AGENT_TOOL, SaveAgentToolInputSchema, type Approval, type ApprovalDetail, type ProposalEval, type SaveAgentToolInput } from '@switchyard/contracts';
import type { AgentStore } from '../agent-ports';
import type { EvalStore } from '../eval-ports';
import type { AgentCommandContext, AgentRegistry } from './agent-registry';
import type { EvalRuns } from './eval-runs';
import { assertMayImprove, draftHash } from './improve-permission';

/** How many of the agent's newest eval runs a proposal's eval is looked for in. */
const RECENT_EVALS = 100;

/** What saving and explaining proposals need. */
export interface SelfImprovementDeps {
  agents: Pick<AgentStore, 'get'>;
  evals: Pick<EvalStore, 'listRuns' | 'useSaveApproval'>;
  /** Reads (so settles) an eval that may have ended. */
  evalRuns: Pick<EvalRuns, 'read'>;
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
  async detail(ctx: AgentCommandContext, approval: Approval): Promise<ApprovalDetail> {
    if (approval.tool?.name !== SAVE_AGENT_TOOL) return approval;
    return { ...approval, proposalEval: await this.proposalEval(ctx, approval) };
  }

  private async proposalEval(ctx: AgentCommandContext, approval: Approval): Promise<ProposalEval> {
    if (approval.truncated) return { evalId: null, note: "the proposed spec is longer than the approval's preview: read the call in the run's transcript" };
    const proposed = SaveAgentToolInputSchema.safeParse(safeJson(approval.argumentsPreview));
    if (!proposed.success) return { evalId: null, note: 'the call does not name an agent and a valid spec' };
    const hash = draftHash(proposed.data.spec);
    const runs = await this.deps.evals.listRuns(ctx.principal.workspaceId, proposed.data.agentId, RECENT_EVALS);
    // Newest first; one still running is read, which settles it if its trials have ended.
    for (const run of runs.filter((r) => r.targets.at(-1)?.specHash === hash)) {
      const { result } = run.status === 'completed' ? run : await this.deps.evalRuns.read(ctx, run.id);
      if (result) return { evalId: run.id, passed: result.passed, failingCases: result.failingCases, diff: result.diff };
    }
    return { evalId: null, note: 'no completed eval run compares this draft with the version that runs: the person decides without one' };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
