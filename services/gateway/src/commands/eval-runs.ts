import { AppError, ErrorCode, MAX_EVAL_TRIAL_RUNS, type EvalCase, type EvalRun, type EvalTarget, type StartEvalRequest, type TryAgentRequest } from '@switchyard/contracts';
import { newId, runVersionOf } from '@switchyard/core';
import { settleEval } from '@switchyard/evals';
import type { AgentStore, StoredAgentSpec } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { EvalJudgeModel, EvalRunRecord, EvalStore, EvalTrialSlot } from '../eval-ports';
import { assertMayImprove, draftHash } from './improve-permission';
import type { SettingsStore } from '../settings-ports';
import type { TryAgent, TryCommandContext } from './try-agent';
import { checkCaseFacts, suiteNotFound } from './eval-suites';

/** What the eval commands need. */
export interface EvalRunsDeps {
  evals: EvalStore;
  agents: Pick<AgentStore, 'get' | 'getVersion'>;
  settings: Pick<SettingsStore, 'get'>;
  tryAgent: Pick<TryAgent, 'try' | 'wake'>;
  /** The judge model (EVAL_JUDGE_BASE_URL); null: suites with a judge cannot run. */
  judge: EvalJudgeModel | null;
}

/** Trials one start creates at once. */
const START_CONCURRENCY = 8;
/** A start's claim on a trial older than this is taken over (its gateway died). */
const START_CLAIM_STALE_MS = 60_000;
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
 * front against a ceiling estimate (the judge's calls included). The gateway
 * orchestrates: the eval row and one row per trial (written together, each
 * with its try run's id) are the whole state; a read starts any trial a dead
 * gateway left unstarted, and settles the eval once every trial's run has
 * ended — idempotently, so any replica, after any restart, does the same.
 */
export class EvalRuns {
  constructor(private readonly deps: EvalRunsDeps) {}

  async start(ctx: TryCommandContext, agentId: string, body: StartEvalRequest): Promise<{ id: string }> {
    const { principal } = ctx;
    const suite = await this.deps.evals.getSuite(principal.workspaceId, body.suite, body.suiteVersion);
    if (!suite) throw suiteNotFound(body.suite, body.suiteVersion);
    const targets = await this.targets(principal, agentId, body);
    const total = suite.cases.length * targets.length * body.trials;
    if (total > MAX_EVAL_TRIAL_RUNS) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, `an eval runs at most ${MAX_EVAL_TRIAL_RUNS} trials`, [
        { code: 'too_many_trials', path: ['trials'], message: `cases × versions × trials is ${total}: at most ${MAX_EVAL_TRIAL_RUNS}` },
      ]);
    }
    await checkCaseFacts(this.deps.evals, principal.workspaceId, suite.cases);
    const judged = suite.cases.findIndex((c) => c.judge !== undefined);
    if (judged >= 0 && !this.deps.judge) throw new AppError(ErrorCode.EVAL_JUDGE_NOT_CONFIGURED, 'a case has a judge, and this gateway has no EVAL_JUDGE_BASE_URL', { caseIndex: judged });
    const { estimateUsd, judgeEstimateUsd } = estimate(suite.cases, targets, body.trials, this.deps.judge);
    if (estimateUsd > body.budgetUsd) {
      throw new AppError(ErrorCode.EVAL_BUDGET_EXCEEDED, 'the eval could spend more than its budget: raise budgetUsd, lower trials, or cap cases with maxCostUsd', { estimateUsd, judgeEstimateUsd, budgetUsd: body.budgetUsd });
    }
    if ((await this.deps.settings.get(principal.workspaceId)).agentsPaused) {
      throw new AppError(ErrorCode.AGENTS_PAUSED, 'agents are paused in this workspace (settings.agentsPaused)', { workspace: principal.workspaceSlug });
    }
    const id = newId();
    // Every trial is written with the eval, its run id chosen: a gateway that dies now leaves them for any reader to start.
    const slots = suite.cases.flatMap((_c, caseIndex) => targets.flatMap((_t, target) => Array.from({ length: body.trials }, (_, trial) => ({ runId: newId(), caseIndex, target, trial }))));
    const draft = targets.find((t) => t.draft)?.draft ?? null;
    const record = { id, workspaceId: principal.workspaceId, agentId, suiteId: suite.id, suiteVersion: suite.version, targets: targets.map((t) => t.target), trials: body.trials, budgetUsd: body.budgetUsd, estimateUsd, draft, createdBy: principal.userId };
    await this.deps.evals.createRun(record, slots);
    await this.startTrials(ctx, { ...record, status: 'running', result: null, createdAt: new Date() }, suite.cases);
    return { id };
  }

  /**
   * Starts the eval's trials not started yet, a few at once, each claimed
   * first (a claim older than START_CLAIM_STALE_MS is taken over: its
   * gateway died). A trial whose try run exists already (its starter died
   * after making it) is woken again and marked, never tried twice.
   */
  private async startTrials(ctx: TryCommandContext, run: EvalRunRecord, cases: readonly EvalCase[]): Promise<void> {
    const workspaceId = run.workspaceId;
    const planned = run.targets.map((target) => ({ target, draft: target.version === null ? run.draft : null }));
    const startOne = async (slot: EvalTrialSlot & { retaken: boolean }) => {
      // Only a retaken claim can find its run made already (the dead starter's): it is woken again, not tried twice.
      const existing = slot.retaken ? await this.deps.evals.existingRun(workspaceId, slot.runId) : null;
      if (existing) return this.deps.tryAgent.wake({ id: slot.runId, workspaceId, agentId: existing.agentId });
      try {
        await this.deps.tryAgent.try(ctx, tryOf(run.agentId, planned[slot.target]!, cases[slot.caseIndex]!), slot.runId);
      } catch (error) {
        // A starter that took over a stale claim may have made it meanwhile (its run id is the trial's): that is the trial.
        if (!(await this.deps.evals.existingRun(workspaceId, slot.runId))) throw error;
      }
    };
    for (;;) {
      const claimed = await this.deps.evals.claimUnstarted(run.id, new Date(Date.now() - START_CLAIM_STALE_MS), START_CONCURRENCY);
      if (claimed.length === 0) return;
      const outcomes = await Promise.allSettled(claimed.map(startOne));
      await this.deps.evals.markStarted(claimed.filter((_slot, i) => outcomes[i]!.status === 'fulfilled').map((slot) => slot.runId));
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /** The eval as it stands; settled (and stored) when every trial's run has ended. */
  async read(ctx: TryCommandContext, id: string): Promise<EvalRun> {
    const workspaceId = ctx.principal.workspaceId;
    let run = await this.deps.evals.getRun(workspaceId, id);
    if (!run) throw new AppError(ErrorCode.EVAL_NOT_FOUND, 'no such eval run in this workspace', { id });
    const total = await this.totalOf(run);
    if (run.status === 'completed') return view(run, total, total);
    let trials = await this.deps.evals.trialsOf(workspaceId, id);
    if (trials.some((t) => !t.started)) {
      await this.resume(ctx, run);
      trials = await this.deps.evals.trialsOf(workspaceId, id);
    }
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

  /**
   * Starts what a start left (its gateway died), as the person who started
   * the eval; a refusal now (agents paused) leaves the trials for a later read.
   */
  private async resume(ctx: TryCommandContext, run: EvalRunRecord): Promise<void> {
    const suite = await this.deps.evals.getSuite(run.workspaceId, run.suiteId, run.suiteVersion);
    if (!suite) return;
    const starter: TryCommandContext = { correlationId: ctx.correlationId, principal: { ...ctx.principal, userId: run.createdBy, agent: undefined, shadowOf: undefined } };
    try {
      await this.startTrials(starter, run, suite.cases);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
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

  /** What runs: saved versions [A, B] or one, or the agent's current version against a draft (an agent token: only an agent it may improve). */
  private async targets(principal: Principal, agentId: string, body: StartEvalRequest): Promise<PlannedTarget[]> {
    const workspaceId = principal.workspaceId;
    const agent = await this.deps.agents.get(workspaceId, agentId);
    if (!agent) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: agentId });
    assertMayImprove(principal, agent);
    const saved = async (version: number): Promise<PlannedTarget> => {
      if (version === agent.version) return { target: { version }, spec: agent.spec, draft: null };
      const found = await this.deps.agents.getVersion(workspaceId, agentId, version);
      if (!found.ok) throw new AppError(ErrorCode.AGENT_VERSION_NOT_FOUND, 'the agent has no such version', { id: agentId, version });
      return { target: { version }, spec: found.version.spec, draft: null };
    };
    if (body.versions) return Promise.all(body.versions.map(saved));
    const { enabled: _enabled, ...draft } = body.draft!;
    return [await saved(runVersionOf(agent)), { target: { version: null, specHash: draftHash(draft) }, spec: draft, draft }];
  }
}

/**
 * The ceiling of what the eval can spend: per trial, the case's `maxCostUsd`,
 * else the version's `perRunUsd` (the runner holds a run to it), plus, for a
 * judged case, the most one judge call can cost (its prompt and answer capped).
 */
function estimate(cases: readonly EvalCase[], targets: readonly PlannedTarget[], trials: number, judge: EvalJudgeModel | null): { estimateUsd: number; judgeEstimateUsd: number } {
  let runs = 0;
  let judging = 0;
  for (const c of cases) {
    for (const t of targets) runs += (c.expect.maxCostUsd ?? t.spec.budget.perRunUsd) * trials;
    if (c.judge && judge) judging += judge.maxCostUsd(c.judge) * trials * targets.length;
  }
  const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
  return { estimateUsd: round(runs + judging), judgeEstimateUsd: round(judging) };
}

function tryOf(agentId: string, planned: Pick<PlannedTarget, 'target' | 'draft'>, c: EvalCase): TryAgentRequest {
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
