import { z } from 'zod';
import { AppError, ErrorCode, EvalCaseSchema, SAVE_AGENT_TOOL, EvalJudgeVerdictSchema, EvalResultSchema, EvalTargetSchema, RunOutcomeSchema, type EvalJudgeVerdict } from '@switchyard/contracts';
import type { Prisma, PrismaClient } from '@switchyard/db';
import type { EndedTrial, TrialCall } from '@switchyard/evals';
import type { EvalRunRecord, EvalStore, EvalSuiteRecord, EvalTrialSlot } from '../eval-ports';

const json = (value: unknown) => value as Prisma.InputJsonValue;
const ENDED = new Set(['completed', 'failed', 'cancelled', 'dropped']);

/** A tool entry as the evals read it: the name, whether it was captured, its arguments when stored. */
const ToolEntrySchema = z.looseObject({ name: z.string(), wouldHave: z.literal(true).optional(), arguments: z.unknown().optional() });

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string, id: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError(ErrorCode.INTERNAL, `stored ${what} has a shape this code cannot read`, { id, issues: result.error.issues });
  return result.data;
}

const suiteOf = (row: { id: string; version: number; name: string; cases: unknown; createdAt: Date }): EvalSuiteRecord => ({
  id: row.id,
  version: row.version,
  name: row.name,
  cases: parsed(z.array(EvalCaseSchema), row.cases, 'eval suite', row.id),
  createdAt: row.createdAt,
});

type RunRow = Awaited<ReturnType<PrismaClient['evalRun']['findFirstOrThrow']>>;
const runOf = (row: RunRow): EvalRunRecord => ({
  id: row.id,
  workspaceId: row.workspaceId,
  agentId: row.agentId,
  suiteId: row.suiteId,
  suiteVersion: row.suiteVersion,
  targets: parsed(z.array(EvalTargetSchema), row.targets, 'eval targets', row.id),
  trials: row.trials,
  budgetUsd: row.budgetUsd,
  estimateUsd: row.estimateUsd,
  draft: row.draft === null ? null : (row.draft as unknown as EvalRunRecord['draft']),
  createdBy: row.createdBy,
  status: row.status === 'completed' ? 'completed' : 'running',
  result: row.result === null ? null : parsed(EvalResultSchema, row.result, 'eval result', row.id),
  createdAt: row.createdAt,
});

/** Suites, eval runs and trials on PostgreSQL (decision 0058): the eval's whole state, so a restarted gateway settles it. */
export class PrismaEvalStore implements EvalStore {
  constructor(private readonly prisma: PrismaClient) {}

  async saveSuite(input: { workspaceId: string; id: string; name: string; cases: EvalSuiteRecord['cases']; userId: string; isNew: boolean }): Promise<EvalSuiteRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      let version = 1;
      if (!input.isNew) {
        // The latest row, locked: two saves of one suite get consecutive versions.
        const latest = await tx.$queryRaw<{ version: number }[]>`
          SELECT version FROM eval_suites WHERE workspace_id = ${input.workspaceId}::uuid AND id = ${input.id}::uuid ORDER BY version DESC LIMIT 1 FOR UPDATE`;
        if (latest.length === 0) return null;
        version = latest[0]!.version + 1;
      }
      const row = await tx.evalSuite.create({ data: { id: input.id, version, workspaceId: input.workspaceId, name: input.name, cases: json(input.cases), createdBy: input.userId } });
      return suiteOf(row);
    });
  }

  async getSuite(workspaceId: string, id: string, version?: number): Promise<EvalSuiteRecord | null> {
    const row = await this.prisma.evalSuite.findFirst({ where: { workspaceId, id, ...(version === undefined ? {} : { version }) }, orderBy: { version: 'desc' } });
    return row ? suiteOf(row) : null;
  }

  async listSuites(workspaceId: string): Promise<EvalSuiteRecord[]> {
    const rows = await this.prisma.evalSuite.findMany({ where: { workspaceId }, orderBy: [{ id: 'asc' }, { version: 'desc' }], distinct: ['id'] });
    return rows.map(suiteOf).sort((a, b) => a.name.localeCompare(b.name));
  }

  async knownFacts(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.platformEvent.findMany({ where: { workspaceId, id: { in: [...ids] } }, select: { id: true } });
    return new Set(rows.map((row) => row.id));
  }

  async createRun(input: Omit<EvalRunRecord, 'status' | 'result' | 'createdAt'>, trials: readonly EvalTrialSlot[]): Promise<void> {
    const { targets, draft, ...rest } = input;
    await this.prisma.$transaction([
      this.prisma.evalRun.create({ data: { ...rest, targets: json(targets), ...(draft === null ? {} : { draft: json(draft) }), status: 'running' } }),
      this.prisma.evalTrial.createMany({ data: trials.map((slot) => ({ evalId: input.id, ...slot })) }),
    ]);
  }

  async claimUnstarted(evalId: string, staleBefore: Date, limit: number): Promise<(EvalTrialSlot & { retaken: boolean })[]> {
    // SKIP LOCKED: two replicas resuming one eval take different trials; `retaken`: a dead starter's claim.
    return this.prisma.$queryRaw<(EvalTrialSlot & { retaken: boolean })[]>`
      WITH picked AS (
        SELECT run_id, claimed_at FROM eval_trials
         WHERE eval_id = ${evalId}::uuid AND started_at IS NULL AND (claimed_at IS NULL OR claimed_at < ${staleBefore})
         ORDER BY case_index, target, trial LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE eval_trials t SET claimed_at = now() FROM picked WHERE t.run_id = picked.run_id
      RETURNING t.run_id::text AS "runId", t.case_index AS "caseIndex", t.target, t.trial, picked.claimed_at IS NOT NULL AS retaken`;
  }

  async markStarted(runIds: readonly string[]): Promise<void> {
    if (runIds.length > 0) await this.prisma.evalTrial.updateMany({ where: { runId: { in: [...runIds] } }, data: { startedAt: new Date() } });
  }

  async existingRun(workspaceId: string, runId: string): Promise<{ agentId: string } | null> {
    return this.prisma.run.findFirst({ where: { workspaceId, id: runId }, select: { agentId: true } });
  }

  async useSaveApproval(workspaceId: string, runId: string, argumentsJson: string): Promise<string | null> {
    // One statement: found, approved, unused and marked used at once, so two calls cannot both use it.
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE approvals SET used_at = now()
       WHERE id = (SELECT id FROM approvals
                    WHERE workspace_id = ${workspaceId}::uuid AND run_id = ${runId}::uuid AND status = 'approved' AND used_at IS NULL
                      AND decided_by->>'type' = 'member'
                      AND kind = 'tool' AND tool->>'name' = ${SAVE_AGENT_TOOL} AND NOT truncated AND arguments_preview = ${argumentsJson}
                    ORDER BY requested_at LIMIT 1 FOR UPDATE)
         AND used_at IS NULL
      RETURNING id::text AS id`;
    return rows[0]?.id ?? null;
  }

  async getRun(workspaceId: string, id: string): Promise<EvalRunRecord | null> {
    const row = await this.prisma.evalRun.findFirst({ where: { workspaceId, id } });
    return row ? runOf(row) : null;
  }

  async listRuns(workspaceId: string, agentId: string, limit: number): Promise<EvalRunRecord[]> {
    const rows = await this.prisma.evalRun.findMany({ where: { workspaceId, agentId }, orderBy: { createdAt: 'desc' }, take: limit });
    return rows.map(runOf);
  }

  async trialsOf(workspaceId: string, evalId: string): Promise<(EvalTrialSlot & { started: boolean; ended: EndedTrial | null; verdict: EvalJudgeVerdict | null })[]> {
    const slots = await this.prisma.evalTrial.findMany({ where: { evalId, evalRun: { workspaceId } } });
    const runIds = slots.map((s) => s.runId);
    const runs = await this.prisma.run.findMany({ where: { workspaceId, id: { in: runIds } }, select: { id: true, status: true, outcome: true, startedAt: true, queuedAt: true, endedAt: true } });
    const endedIds = runs.filter((r) => ENDED.has(r.status)).map((r) => r.id);
    const entries = endedIds.length === 0 ? [] : await this.prisma.transcriptEntry.findMany({ where: { workspaceId, runId: { in: endedIds }, type: 'tool' }, orderBy: [{ runId: 'asc' }, { seq: 'asc' }], select: { runId: true, content: true } });
    const calls = new Map<string, TrialCall[]>();
    for (const entry of entries) {
      const tool = ToolEntrySchema.safeParse(entry.content);
      if (!tool.success) continue;
      const list = calls.get(entry.runId) ?? [];
      list.push({ tool: tool.data.name, arguments: tool.data.arguments ?? {}, wouldHave: tool.data.wouldHave === true });
      calls.set(entry.runId, list);
    }
    const byId = new Map(runs.map((r) => [r.id, r]));
    return slots.map(({ evalId: _evalId, judge, startedAt, claimedAt: _claimedAt, ...slot }) => {
      const verdict = EvalJudgeVerdictSchema.safeParse(judge).data ?? null;
      const run = byId.get(slot.runId);
      const started = startedAt !== null;
      if (!run || !ENDED.has(run.status)) return { ...slot, started, ended: null, verdict };
      const outcome = run.outcome === null ? null : RunOutcomeSchema.safeParse(run.outcome).data ?? null;
      const durationMs = run.endedAt ? run.endedAt.getTime() - (run.startedAt ?? run.queuedAt).getTime() : 0;
      return {
        ...slot,
        started,
        verdict,
        ended: {
          ...slot,
          durationMs,
          outcome: {
            status: run.status,
            summary: outcome?.summary ?? null,
            tokens: (outcome?.tokensIn ?? 0) + (outcome?.tokensOut ?? 0),
            costUsd: outcome?.costUsd ?? 0,
            calls: calls.get(run.id) ?? [],
          },
        },
      };
    });
  }

  async transcriptOf(workspaceId: string, runId: string): Promise<string> {
    const entries = await this.prisma.transcriptEntry.findMany({ where: { workspaceId, runId }, orderBy: { seq: 'asc' }, select: { type: true, content: true } });
    return entries.map((entry) => JSON.stringify(entry)).join('\n');
  }

  async claimJudging(runId: string, staleBefore: Date): Promise<boolean> {
    // One reader asks the judge per trial; a claim left by a reader that died is taken over once stale.
    const claimed = await this.prisma.$executeRaw`
      UPDATE eval_trials SET judge = jsonb_build_object('claimedAt', now())
      WHERE run_id = ${runId}::uuid AND (judge IS NULL OR (judge ? 'claimedAt' AND (judge->>'claimedAt')::timestamptz < ${staleBefore}))`;
    return claimed === 1;
  }

  async storeVerdict(runId: string, verdict: EvalJudgeVerdict): Promise<void> {
    await this.prisma.evalTrial.update({ where: { runId }, data: { judge: json(verdict) } });
  }

  async settle(workspaceId: string, id: string, result: EvalRunRecord['result']): Promise<void> {
    await this.prisma.evalRun.updateMany({ where: { workspaceId, id, status: 'running' }, data: { status: 'completed', result: json(result), settledAt: new Date() } });
  }
}
