import { AppError, ErrorCode, type AcceptedFact, type EvalGate, type EvalGateOverride, type EvalGateState } from '@switchyard/contracts';
import { evalGateOverriddenFact, runVersionOf } from '@switchyard/core';
import type { AgentRecord, AgentStore } from '../agent-ports';
import { changeAuthorOf } from '../change-author';
import type { EvalRunRecord, EvalStore } from '../eval-ports';
import type { Principal } from '../auth-ports';

/** How many of an agent's newest eval runs the gate looks through for one of the version. */
const RECENT_EVALS = 100;

/**
 * The promotion gate (decision 0058). When the agent's latest spec names an
 * `evalGate`, making `version` the one that runs (enable, pin) needs the
 * newest completed eval run of the gate's suite whose candidate is that
 * version, with at least the gate's trials, to pass (or, with
 * `allowRegression`, to exist). Otherwise `409 EVAL_GATE` names the failing
 * cases — unless an admin overrides with a reason: the change then records
 * `agent.eval_gate_overridden` in its own transaction (the fact returned here).
 */
export class EvalGateCheck {
  constructor(private readonly evals: Pick<EvalStore, 'listRuns'>) {}

  async check(ctx: { principal: Principal }, agent: AgentRecord, version: number, override: EvalGateOverride | undefined): Promise<AcceptedFact | null> {
    const gate = agent.spec.evalGate;
    if (!gate) return null;
    const latest = await this.newestEval(ctx.principal.workspaceId, agent.id, gate, version);
    const passed = latest !== undefined && (latest.result!.passed || gate.allowRegression);
    if (passed) return null;
    const failingCases = latest?.result?.failingCases ?? [];
    if (!override) {
      const why = latest ? 'the newest eval run of this version on the gate suite did not pass' : 'no completed eval run of this version on the gate suite';
      throw new AppError(ErrorCode.EVAL_GATE, `${why}: run an eval, or an admin overrides with a reason`, { id: agent.id, version, suite: gate.suite, evalId: latest?.id ?? null, failingCases });
    }
    if (ctx.principal.role !== 'admin') throw new AppError(ErrorCode.FORBIDDEN, 'only an admin overrides the eval gate', { required: 'admin' });
    return evalGateOverriddenFact(changeAuthorOf(ctx.principal), agent.id, {
      name: agent.name,
      version,
      suite: gate.suite,
      evalId: latest?.id ?? null,
      failingCases,
      reason: override.reason,
    });
  }

  /** The gate as the agent page shows it: what making `version` run would meet, without changing anything. */
  async state(workspaceId: string, agent: AgentRecord, version: number): Promise<EvalGateState> {
    const gate = agent.spec.evalGate;
    if (!gate) return { gate: null, version, evalId: null, passed: null, failingCases: [], allowed: true };
    const latest = await this.newestEval(workspaceId, agent.id, gate, version);
    const passed = latest ? latest.result!.passed : null;
    return { gate, version, evalId: latest?.id ?? null, passed, failingCases: latest?.result?.failingCases ?? [], allowed: latest !== undefined && (passed === true || gate.allowRegression) };
  }

  /** The newest completed eval run of the gate's suite whose candidate is `version`, with at least the gate's trials. */
  private async newestEval(workspaceId: string, agentId: string, gate: EvalGate, version: number): Promise<EvalRunRecord | undefined> {
    const runs = await this.evals.listRuns(workspaceId, agentId, RECENT_EVALS);
    return runs.find((run) => run.status === 'completed' && run.suiteId === gate.suite && run.trials >= gate.trials && run.targets.at(-1)?.version === version);
  }
}

/** The gate of the version an agent runs now (its pin, else its latest): `GET /agents/{id}/eval-gate`. */
export async function evalGateStateOf(deps: { agents: Pick<AgentStore, 'get'>; evalGate: Pick<EvalGateCheck, 'state'> }, principal: Principal, agentId: string): Promise<EvalGateState> {
  const agent = await deps.agents.get(principal.workspaceId, agentId);
  if (!agent) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: agentId });
  return deps.evalGate.state(principal.workspaceId, agent, runVersionOf(agent));
}
