import type { EvalCase, EvalJudgeVerdict, EvalResult, EvalTarget } from '@switchyard/contracts';
import type { EndedTrial } from '@switchyard/evals';
import type { StoredAgentSpec } from './agent-ports';

/** A suite's version as stored. */
export interface EvalSuiteRecord {
  id: string;
  version: number;
  name: string;
  cases: EvalCase[];
  createdAt: Date;
}

/** An eval run as stored; `result` null while running. */
export interface EvalRunRecord {
  id: string;
  workspaceId: string;
  agentId: string;
  suiteId: string;
  suiteVersion: number;
  targets: EvalTarget[];
  trials: number;
  budgetUsd: number;
  estimateUsd: number;
  /** A draft target's spec; null: saved versions only. */
  draft: StoredAgentSpec | null;
  /** Who started it: its trials are tries of this person. */
  createdBy: string;
  status: 'running' | 'completed';
  result: EvalResult | null;
  createdAt: Date;
}

/** Where a trial sits in its eval run. */
export interface EvalTrialSlot {
  runId: string;
  caseIndex: number;
  target: number;
  trial: number;
}

/** Suites, eval runs and their trials (decision 0058). Every method is scoped by workspace id. */
export interface EvalStore {
  /** Saves a suite's next version (`id` new: its first); null when `id` names no suite of the workspace. */
  saveSuite(input: { workspaceId: string; id: string; name: string; cases: EvalCase[]; userId: string; isNew: boolean }): Promise<EvalSuiteRecord | null>;
  /** A suite at `version` (default: its latest). */
  getSuite(workspaceId: string, id: string, version?: number): Promise<EvalSuiteRecord | null>;
  /** The latest version of each suite, by name. */
  listSuites(workspaceId: string): Promise<EvalSuiteRecord[]>;
  /** Which of these fact ids are recorded facts of the workspace. */
  knownFacts(workspaceId: string, ids: readonly string[]): Promise<Set<string>>;
  /** The eval row and every trial (its run id chosen, not started), in one transaction: a start that dies leaves them to resume. */
  createRun(input: Omit<EvalRunRecord, 'status' | 'result' | 'createdAt'>, trials: readonly EvalTrialSlot[]): Promise<void>;
  /** Claims up to `limit` trials not started, unclaimed or claimed before `staleBefore` (`retaken`: its starter may have made its run), for this caller to start. */
  claimUnstarted(evalId: string, staleBefore: Date, limit: number): Promise<(EvalTrialSlot & { retaken: boolean })[]>;
  /** Marks trials' try runs created. */
  markStarted(runIds: readonly string[]): Promise<void>;
  /** The agent of a run of the workspace that exists (a trial's try made before its starter died); null: none. */
  existingRun(workspaceId: string, runId: string): Promise<{ agentId: string } | null>;
  /**
   * Uses the oldest unused `platform.save_agent` approval a person approved of the
   * run whose preview (not cut) is exactly `argumentsJson`: marked used, its
   * id returned; null when there is none.
   */
  useSaveApproval(workspaceId: string, runId: string, argumentsJson: string): Promise<string | null>;
  getRun(workspaceId: string, id: string): Promise<EvalRunRecord | null>;
  /** An agent's eval runs, newest first. */
  listRuns(workspaceId: string, agentId: string, limit: number): Promise<EvalRunRecord[]>;
  /** Its trials, whether each was started, what its run did once it ended (null while it runs) and the judge's verdict (null: none yet). */
  trialsOf(workspaceId: string, evalId: string): Promise<(EvalTrialSlot & { started: boolean; ended: EndedTrial | null; verdict: EvalJudgeVerdict | null })[]>;
  /** The run's transcript as the judge reads it: one JSON line per entry (`{type, content}`), in order. */
  transcriptOf(workspaceId: string, runId: string): Promise<string>;
  /** Claims a trial for judging (unjudged, or claimed before `staleBefore`): true when this caller may ask the judge. */
  claimJudging(runId: string, staleBefore: Date): Promise<boolean>;
  /** Stores the judge's verdict on a trial. */
  storeVerdict(runId: string, verdict: EvalJudgeVerdict): Promise<void>;
  /** Stores the result once (a run still `running` only): settling twice is harmless. */
  settle(workspaceId: string, id: string, result: EvalResult): Promise<void>;
}

/** A judge model (decision 0058): reads a trial's transcript against a rubric and answers pass or fail with a reason. */
export interface EvalJudgeModel {
  judge(input: { model: string; rubric: string; transcript: string }): Promise<EvalJudgeVerdict>;
  /** The most one call about a trial can cost (its prompt and answer capped): the eval's estimate counts it. */
  maxCostUsd(input: { model: string; rubric: string }): number;
}
