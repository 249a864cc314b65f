import { z } from 'zod';
import { AgentIdSchema, AgentSpecSchema, EvalGateOverrideSchema } from './agents';
import { ApprovalSchema } from './approvals';
import { FactIdSchema } from './facts';
import { TryFactSchema } from './try-drive';

/*
 * Agent evals (docs/decisions/0058-agent-evals.md): suites of recorded or
 * hand-built facts with deterministic expectations, run as shadow tries at
 * one or two versions, compared case by case with significance.
 */

/** Most cases in a suite, trials per case, and trials in one eval run. */
export const MAX_EVAL_CASES = 200;
export const MAX_EVAL_TRIALS = 50;
export const MAX_EVAL_TRIAL_RUNS = 2_000;

/** A tool call as the agent spec and scripts write it (`platform.emit_event`, `web.echo`). */
const ToolNameSchema = z.string().min(1).max(200);

/**
 * A call the trial must have made (captured as `wouldHave`): by tool name, and
 * when `args` is given each key — a dot path into the arguments (`subject.id`)
 * — must hold a value deep-equal to the one given.
 */
export const EvalWouldCallSchema = z.strictObject({
  tool: ToolNameSchema,
  args: z.record(z.string().min(1).max(200), z.unknown()).optional(),
});
export type EvalWouldCall = z.infer<typeof EvalWouldCallSchema>;

/** Deterministic checks over one trial; a trial passes when every given check holds. */
export const EvalExpectSchema = z.strictObject({
  wouldCall: z.array(EvalWouldCallSchema).max(20).optional(),
  /** Tools (by name) the trial must not call, captured or live. */
  wouldNotCall: z.array(ToolNameSchema).max(20).optional(),
  /** The run's final status. */
  status: z.enum(['completed', 'failed', 'cancelled']).optional(),
  /** Text the outcome's summary must contain. */
  summaryIncludes: z.string().min(1).max(2_000).optional(),
  maxTokens: z.number().int().min(1).optional(),
  maxCostUsd: z.number().positive().optional(),
});
export type EvalExpect = z.infer<typeof EvalExpectSchema>;

/** A judge (decision 0058): a model by name, at the operator's OpenAI-compatible endpoint, that reads the trial's transcript and answers pass or fail with a reason against the rubric. */
export const EvalJudgeSchema = z.strictObject({
  model: z.string().min(1).max(200),
  rubric: z.string().min(1).max(8_000),
});
export type EvalJudge = z.infer<typeof EvalJudgeSchema>;

/** A judge's verdict on one trial, with what the judging cost. */
export const EvalJudgeVerdictSchema = z.strictObject({
  passed: z.boolean(),
  reason: z.string().max(4_000),
  tokens: z.number().int().min(0),
  costUsd: z.number().min(0),
});
export type EvalJudgeVerdict = z.infer<typeof EvalJudgeVerdictSchema>;

/** A case: a recorded fact of the workspace (`factId`) or a hand-built one (`fact`), and its expectations. */
export const EvalCaseSchema = z
  .strictObject({
    factId: FactIdSchema.optional(),
    fact: TryFactSchema.optional(),
    expect: EvalExpectSchema,
    judge: EvalJudgeSchema.optional(),
  })
  .refine((c) => (c.factId === undefined) !== (c.fact === undefined), { message: 'give exactly one of factId or fact', path: ['factId'] });
export type EvalCase = z.infer<typeof EvalCaseSchema>;

/** `POST /eval-suites` (a new suite) and `PUT /eval-suites/{id}` (its next version) body. */
export const SaveEvalSuiteRequestSchema = z.strictObject({
  name: z.string().min(1).max(200),
  cases: z.array(EvalCaseSchema).min(1).max(MAX_EVAL_CASES),
});
export type SaveEvalSuiteRequest = z.infer<typeof SaveEvalSuiteRequestSchema>;

/** A suite's version as read. */
export const EvalSuiteSchema = z.strictObject({
  id: z.uuid(),
  version: z.number().int().positive(),
  name: z.string(),
  cases: z.array(EvalCaseSchema),
  createdAt: z.string(),
});
export type EvalSuite = z.infer<typeof EvalSuiteSchema>;

/**
 * `POST /agents/{id}/evals` body: the suite (latest version unless given),
 * what runs — two saved `versions` [A, B] (B compared with A), one saved
 * version, or a `draft` spec compared with the agent's current version —,
 * trials per case per version, and the USD budget the estimate must fit.
 */
const StartEvalFields = {
    suite: z.uuid(),
    suiteVersion: z.number().int().positive().optional(),
    versions: z.array(z.number().int().positive().max(2_147_483_647)).min(1).max(2).optional(),
    draft: AgentSpecSchema.optional(),
    trials: z.number().int().min(1).max(MAX_EVAL_TRIALS),
    budgetUsd: z.number().positive().max(100_000),
};
const oneTarget = { message: 'give exactly one of versions or draft', path: ['versions'] };
export const StartEvalRequestSchema = z.strictObject(StartEvalFields).refine((b) => (b.versions === undefined) !== (b.draft === undefined), oneTarget);
export type StartEvalRequest = z.infer<typeof StartEvalRequestSchema>;

/** What one side of an eval ran: a saved version, or a draft (its spec kept with each try). */
export const EvalTargetSchema = z.strictObject({
  version: z.number().int().positive().nullable(),
  /** A draft's spec hash (`specHash`, without `enabled`): a proposed save of the same spec finds this eval's diff. */
  specHash: z.string().optional(),
});
export type EvalTarget = z.infer<typeof EvalTargetSchema>;

/** One trial as settled: its run, pass or fail, and the checks that failed. */
export const EvalTrialResultSchema = z.strictObject({
  runId: z.uuid(),
  target: z.number().int(),
  trial: z.number().int(),
  status: z.string(),
  passed: z.boolean(),
  failures: z.array(z.string()),
  /** The judge's verdict, when the case has a judge (its fail is among `failures` too). */
  judge: EvalJudgeVerdictSchema.optional(),
  tokens: z.number(),
  costUsd: z.number(),
  durationMs: z.number(),
});
export type EvalTrialResult = z.infer<typeof EvalTrialResultSchema>;

/** One case's results: per target the pass rate, and the trials. */
export const EvalCaseResultSchema = z.strictObject({
  caseIndex: z.number().int(),
  passRates: z.array(z.number()),
  trials: z.array(EvalTrialResultSchema),
});

/** The diff of B against A (compareVersions of @switchyard/evals), present with two targets. */
export const EvalDiffSchema = z.strictObject({
  verdict: z.enum(['better', 'worse', 'no detectable difference']),
  noiseFloor: z.number(),
  drivers: z.array(z.number().int()),
  cases: z.array(
    z.strictObject({
      caseIndex: z.number().int(),
      passRateA: z.number(),
      passRateB: z.number(),
      pValue: z.number(),
      qValue: z.number(),
      changed: z.boolean(),
      direction: z.enum(['better', 'worse', 'same']),
    }),
  ),
});
export type EvalDiff = z.infer<typeof EvalDiffSchema>;

/** A settled eval's result, stored in `eval_runs.result`. */
export const EvalResultSchema = z.strictObject({
  cases: z.array(EvalCaseResultSchema),
  diff: EvalDiffSchema.nullable(),
  /** Whether the candidate (B, or the only target) passes: no case worse than A; alone, every case passes a majority of trials. */
  passed: z.boolean(),
  failingCases: z.array(z.number().int()),
  tokens: z.number(),
  /** The trials' runs' cost plus the judges'. */
  costUsd: z.number(),
  /** What the judges cost (part of `costUsd`). */
  judgeCostUsd: z.number(),
});
export type EvalResult = z.infer<typeof EvalResultSchema>;

/** `GET /evals/{id}`: the run, its progress, and once completed its result. */
export const EvalRunSchema = z.strictObject({
  id: z.uuid(),
  agentId: z.uuid(),
  suite: z.strictObject({ id: z.uuid(), version: z.number().int() }),
  targets: z.array(EvalTargetSchema),
  trials: z.number().int(),
  budgetUsd: z.number(),
  estimateUsd: z.number(),
  status: z.enum(['running', 'completed']),
  trialsEnded: z.number().int(),
  trialsTotal: z.number().int(),
  result: EvalResultSchema.nullable(),
  createdAt: z.string(),
});
export type EvalRun = z.infer<typeof EvalRunSchema>;


/** `agent.eval_gate_overridden`: subject the agent; payload the version let through, the reason and the failing cases. */
export const EVAL_GATE_OVERRIDDEN_KIND = 'agent.eval_gate_overridden';

/** `POST /agents/{id}/enable` body (optional): an admin's override of the eval gate. */
export const EnableAgentRequestSchema = z.strictObject({ overrideEvalGate: EvalGateOverrideSchema.optional() });
export type EnableAgentRequest = z.infer<typeof EnableAgentRequestSchema>;

/** `GET /eval-suites/{id}?version=`: a version other than the latest. */
export const GetEvalSuiteQuerySchema = z.strictObject({ version: z.coerce.number().int().positive().max(2_147_483_647).optional() });

/** Eval suite and eval run ids in paths. */
export const EvalIdSchema = z.uuid();

/**
 * The eval diff attached to a `platform.save_agent` approval (decision 0058):
 * the newest completed eval run of the agent whose draft is the proposed
 * spec, compared with the version that ran; or a note that none exists.
 */
export const ProposalEvalSchema = z.union([
  z.strictObject({ evalId: z.uuid(), passed: z.boolean(), failingCases: z.array(z.number().int()), diff: EvalDiffSchema.nullable() }),
  z.strictObject({ evalId: z.null(), note: z.string() }),
]);
export type ProposalEval = z.infer<typeof ProposalEvalSchema>;

/** `GET /approvals/{id}`: the approval, and for a `platform.save_agent` call the eval of the proposed spec. */
export const ApprovalDetailSchema = ApprovalSchema.extend({ proposalEval: ProposalEvalSchema.optional() });
export type ApprovalDetail = z.infer<typeof ApprovalDetailSchema>;

/** `run_eval` (platform tool): an eval run of `agentId`, like `POST /agents/{id}/evals`. */
export const RunEvalToolInputSchema = z
  .strictObject({ agentId: AgentIdSchema, ...StartEvalFields })
  .refine((b) => (b.versions === undefined) !== (b.draft === undefined), oneTarget);
export type RunEvalToolInput = z.infer<typeof RunEvalToolInputSchema>;

/** `get_eval` (platform tool): one eval run, like `GET /evals/{id}`. */
export const GetEvalToolInputSchema = z.strictObject({ id: z.uuid() });
export type GetEvalToolInput = z.infer<typeof GetEvalToolInputSchema>;

/** The name `save_agent` has in runs (rules, approvals, transcripts): every call of it by an agent parks for a person. */
export const SAVE_AGENT_TOOL = 'platform.save_agent';

/** `save_agent` (platform tool): the agent's next version, like `PUT /agents/{id}` (the flag untouched); by an agent, only once a person approved the call. */
export const SaveAgentToolInputSchema = z.strictObject({ agentId: AgentIdSchema, spec: AgentSpecSchema });
export type SaveAgentToolInput = z.infer<typeof SaveAgentToolInputSchema>;
