import { AppError, ErrorCode, MAX_EVAL_TRIAL_RUNS, type EvalCase, type EvalRun, type EvalTarget, type StartEvalRequest, type TryAgentRequest } from '@switchyard/contracts';
import { newId, runVersionOf } from '@switchyard/core';
import { settleEval } from '@switchyard/evals';
import type { AgentStore, StoredAgentSpec } from '../agent-ports';
import type { EvalJudgeModel, EvalRunRecord, EvalStore } from '../eval-ports';
import type { SettingsStore } from '../settings-ports';
import type { TryAgent, TryCommandContext } from './try-agent';
import { checkCaseFacts, suiteNotFound } from './eval-suites';

/** What the eval commands need. */
export interface EvalRunsDeps {
  evals: EvalStore;
  agents: Pick<AgentStore, 'get' | 'getVersion'>;
  settings: Pick<SettingsStore, 'get'>;
  tryAgent: Pick<TryAgent, 'try'>;
  /** The judge model (EVAL_JUDGE_BASE_URL); null: suites with a judge cannot run. */
  judge: EvalJudgeModel | null;
}

/** Trials one start creates at once. */
const START_CONCURRENCY = 8;
/** Judge calls one read makes at once. */
const JUDGE_CONCURRENCY = 8;
/** A judging claim older than this is taken over (its reader died). */
const JUDGE_CLAIM_STALE_MS = 5 * 60_000;

/** A side of the eval with the spec it runs (to estimate its cost). */
interface PlannedTarget {
  target: EvalTarget;
  spec: StoredAgentSpec;
  draft: StoredAgentSpec | null;
}

/**
 * Eval runs (decision 0058): N shadow tries per case per target through the
 * try-drive command (so never a real side effect), under a budget checked up
 * front against a ceiling estimate. The gateway orchestrates: the eval row
 * and one row per trial (its try run) are the whole state, and a read
 * settles the eval once every trial's run has ended — idempotently, so any
 * replica, after any restart, settles it the same way.
 */
export class EvalRuns {
  constructor(private readonly deps: EvalRunsDeps) {}

  async start(ctx: TryCommandContext, agentId: string, body: StartEvalRequest): Promise<{ id: string }> {
    const { principal } = ctx;
    if (principal.agent) throw new AppError(ErrorCode.TRY_BY_AGENT_REFUSED, 'only people run evals: an agent token cannot');
    const suite = await this.deps.evals.getSuite(principal.workspaceId, body.suite, body.suiteVersion);
    if (!suite) throw suiteNotFound(body.suite, body.suiteVersion);
    const targets = await this.targets(principal.workspaceId, agentId, body);
    const total = suite.cases.length * targets.length * body.trials;
    if (total > MAX_EVAL_TRIAL_RUNS) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, `an eval runs at most ${MAX_EVAL_TRIAL_RUNS} trials`, [
        { code: 'too_many_trials', path: ['trials'], message: `cases × versions × trials is ${total}: at most ${MAX_EVAL_TRIAL_RUNS}` },
      ]);
    }
    await checkCaseFacts(this.deps.evals, principal.workspaceId, suite.cases);
    const judged = suite.cases.findIndex((c) => c.judge !== undefined);
    if (judged >= 0 && !this.deps.judge) throw new AppError(ErrorCode.EVAL_JUDGE_NOT_CONFIGURED, 'a case has a judge, and this gateway has no EVAL_JUDGE_BASE_URL', { caseIndex: judged });
    const estimateUsd = estimate(suite.cases, targets, body.trials);
    if (estimateUsd > body.budgetUsd) {
      throw new AppError(ErrorCode.EVAL_BUDGET_EXCEEDED, 'the eval could spend more than its budget: raise budgetUsd, lower trials, or cap cases with maxCostUsd', { estimateUsd, budgetUsd: body.budgetUsd });
    }
    if ((await this.deps.settings.get(principal.workspaceId)).agentsPaused) {
      throw new AppError(ErrorCode.AGENTS_PAUSED, 'agents are paused in this workspace (settings.agentsPaused)', { workspace: principal.workspaceSlug });
    }
    const id = newId();
    await this.deps.evals.createRun({ id, workspaceId: principal.workspaceId, agentId, suiteId: suite.id, suiteVersion: suite.version, targets: targets.map((t) => t.target), trials: body.trials, budgetUsd: body.budgetUsd, estimateUsd, userId: principal.userId });
    const slots = suite.cases.flatMap((c, caseIndex) => targets.flatMap((planned, target) => Array.from({ length: body.trials }, (_, trial) => ({ c, caseIndex, planned, target, trial }))));
    // A few tries at once: each is a few round trips to PostgreSQL and Redis, so starting them one by one waits on the network.
    const startOne = async () => {
      for (let slot = slots.shift(); slot; slot = slots.shift()) {
        const tried = await this.deps.tryAgent.try(ctx, tryOf(agentId, slot.planned, slot.c));
        await this.deps.evals.addTrial(id, { runId: tried.runId, caseIndex: slot.caseIndex, target: slot.target, trial: slot.trial });
      }
    };
    await Promise.all(Array.from({ length: START_CONCURRENCY }, startOne));
    return { id };
  }

  /** The eval as it stands; settled (and stored) when every trial's run has ended. */
  async read(ctx: TryCommandContext, id: string): Promise<EvalRun> {
    const workspaceId = ctx.principal.workspaceId;
    let run = await this.deps.evals.getRun(workspaceId, id);
    if (!run) throw new AppError(ErrorCode.EVAL_NOT_FOUND, 'no such eval run in this workspace', { id });
    const total = await this.totalOf(run);
    if (run.status === 'completed') return view(run, total, total);
    let trials = await this.deps.evals.trialsOf(workspaceId, id);
    const endedCount = trials.filter((t) => t.ended).length;
    if (trials.length < total || endedCount < total) return view(run, endedCount, total);
    const suite = (await this.deps.evals.getSuite(workspaceId, run.suiteId, run.suiteVersion))!;
    const unjudged = trials.filter((t) => suite.cases[t.caseIndex]!.judge && !t.verdict);
    if (unjudged.length > 0) {
      if (!(await this.judgeAll(workspaceId, suite.cases, unjudged))) return view(run, endedCount, total);
      trials = await this.deps.evals.trialsOf(workspaceId, id);
    }
    const ended = trials.flatMap((t) => (t.ended ? [{ ...t.ended, verdict: t.verdict }] : []));
    await this.deps.evals.settle(workspaceId, id, settleEval(suite.cases, run.targets.length, ended));
    run = (await this.deps.evals.getRun(workspaceId, id))!;
    return view(run, total, total);
  }

  async list(ctx: TryCommandContext, agentId: string): Promise<EvalRun[]> {
    const runs = await this.deps.evals.listRuns(ctx.principal.workspaceId, agentId, 50);
    return Promise.all(runs.map((run) => this.read(ctx, run.id)));
  }

  private async totalOf(run: EvalRunRecord): Promise<number> {
    const suite = await this.deps.evals.getSuite(run.workspaceId, run.suiteId, run.suiteVersion);
    return (suite?.cases.length ?? 0) * run.targets.length * run.trials;
  }

  /** Asks the judge about each trial this reader claims; false when another reader still holds a claim. */
  private async judgeAll(workspaceId: string, cases: readonly EvalCase[], trials: readonly { runId: string; caseIndex: number }[]): Promise<boolean> {
    const judge = this.deps.judge;
    if (!judge) return false;
    let all = true;
    const queue = [...trials];
    const worker = async () => {
      for (let trial = queue.shift(); trial; trial = queue.shift()) {
        if (!(await this.deps.evals.claimJudging(trial.runId, new Date(Date.now() - JUDGE_CLAIM_STALE_MS)))) {
          all = false;
          continue;
        }
        const { model, rubric } = cases[trial.caseIndex]!.judge!;
        const transcript = await this.deps.evals.transcriptOf(workspaceId, trial.runId);
        await this.deps.evals.storeVerdict(trial.runId, await judge.judge({ model, rubric, transcript }));
      }
    };
    await Promise.all(Array.from({ length: JUDGE_CONCURRENCY }, worker));
    return all;
  }

  /** What runs: saved versions [A, B] or one, or the agent's current version against a draft. */
  private async targets(workspaceId: string, agentId: string, body: StartEvalRequest): Promise<PlannedTarget[]> {
    const agent = await this.deps.agents.get(workspaceId, agentId);
    if (!agent) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: agentId });
    const saved = async (version: number): Promise<PlannedTarget> => {
      if (version === agent.version) return { target: { version }, spec: agent.spec, draft: null };
      const found = await this.deps.agents.getVersion(workspaceId, agentId, version);
      if (!found.ok) throw new AppError(ErrorCode.AGENT_VERSION_NOT_FOUND, 'the agent has no such version', { id: agentId, version });
      return { target: { version }, spec: found.version.spec, draft: null };
    };
    if (body.versions) return Promise.all(body.versions.map(saved));
    const { enabled: _enabled, ...draft } = body.draft!;
    return [await saved(runVersionOf(agent)), { target: { version: null }, spec: draft, draft }];
  }
}

/** The ceiling of what the eval can spend: per trial, the case's `maxCostUsd`, else the version's `perRunUsd` (the runner holds a run to it). */
function estimate(cases: readonly EvalCase[], targets: readonly PlannedTarget[], trials: number): number {
  let sum = 0;
  for (const c of cases) for (const t of targets) sum += (c.expect.maxCostUsd ?? t.spec.budget.perRunUsd) * trials;
  return Math.round(sum * 1e6) / 1e6;
}

function tryOf(agentId: string, planned: PlannedTarget, c: EvalCase): TryAgentRequest {
  const what = planned.draft ? { spec: planned.draft, agentId } : { agentId, version: planned.target.version! };
  return { ...what, ...(c.factId !== undefined ? { eventId: c.factId } : { fact: c.fact! }) } as TryAgentRequest;
}

function view(run: EvalRunRecord, trialsEnded: number, trialsTotal: number): EvalRun {
  return {
    id: run.id,
    agentId: run.agentId,
    suite: { id: run.suiteId, version: run.suiteVersion },
    targets: run.targets,
    trials: run.trials,
    budgetUsd: run.budgetUsd,
    estimateUsd: run.estimateUsd,
    status: run.status,
    trialsEnded,
    trialsTotal,
    result: run.result,
    createdAt: run.createdAt.toISOString(),
  };
}
