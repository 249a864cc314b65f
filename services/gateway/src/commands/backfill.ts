import { AppError, ErrorCode, type BackfillBatch, type BackfillRequest, type BackfillResponse, type StoppedRun } from '@switchyard/contracts';
import { newId, runVersionOf } from '@switchyard/core';
import type { AgentStore } from '../agent-ports';
import type { BackfillStore } from '../backfill-ports';
import type { RunCommandContext, RunLedger } from '../run-ledger';
import type { ActivationSink } from '../run-ports';

/** What AgentBackfills needs. */
export interface AgentBackfillsDeps {
  agents: Pick<AgentStore, 'get'>;
  backfills: BackfillStore;
  ledger: Pick<RunLedger, 'stop'>;
  activations: ActivationSink;
  /** MAX_CAUSATION_DEPTH: facts this deep activate nothing, as in the matcher. */
  maxCausationDepth: number;
}

/**
 * Backfills (decision 0055): an agent activated once per recorded fact of a
 * range, under one batch id, through the guards a trigger run passes (self
 * cause and depth when the facts are chosen; queue cap and daily budget as
 * the matcher's feeder starts them). A dry run writes nothing.
 */
export class AgentBackfills {
  constructor(private readonly deps: AgentBackfillsDeps) {}

  async backfill(ctx: RunCommandContext, agentId: string, request: BackfillRequest): Promise<BackfillResponse> {
    const { principal } = ctx;
    const agent = await this.deps.agents.get(principal.workspaceId, agentId);
    if (!agent) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: agentId });
    const target = { workspaceId: principal.workspaceId, workspaceSlug: principal.workspaceSlug, agentId: agent.id, maxDepth: this.deps.maxCausationDepth };
    if (request.dryRun) {
      const plan = await this.deps.backfills.plan(target, request);
      return { batchId: null, dryRun: true, runs: plan.seqs.length, skipped: plan.skipped, estimatedCostUsd: plan.estimatedCostUsd };
    }
    // A disabled agent's batch would end at once (agent_disabled): refused instead, nothing written.
    if (!agent.enabled) throw new AppError(ErrorCode.AGENT_DISABLED, 'the agent is disabled: enable it to backfill it', { id: agentId });
    const batchId = newId();
    const plan = await this.deps.backfills.create(target, { id: batchId, agentVersion: runVersionOf(agent), createdBy: principal.userId, request });
    // The first runs at once; the matcher's feeder starts the rest as the queue frees up. A lost wake is the runner sweep's.
    await this.deps.activations.wakeOrLeaveToSweep(await this.deps.backfills.feed());
    return { batchId, dryRun: false, runs: plan.seqs.length, skipped: plan.skipped, estimatedCostUsd: plan.estimatedCostUsd };
  }

  /** A batch of the agent, also once the agent is deleted (its reason says why it stopped). */
  async get(ctx: RunCommandContext, agentId: string, batchId: string): Promise<BackfillBatch> {
    const batch = await this.deps.backfills.get(ctx.principal.workspaceId, agentId, batchId);
    if (!batch) throw new AppError(ErrorCode.BACKFILL_NOT_FOUND, 'no such backfill of this agent', { id: batchId });
    return batch;
  }

  /** Stops a batch as one: no more of its runs start, and each of its live runs gets the causal stop. */
  async stop(ctx: RunCommandContext, agentId: string, batchId: string): Promise<{ batchId: string; stopped: StoppedRun[] }> {
    const { workspaceId } = ctx.principal;
    if (!(await this.deps.backfills.stop(workspaceId, agentId, batchId))) {
      throw new AppError(ErrorCode.BACKFILL_NOT_FOUND, 'no such backfill of this agent', { id: batchId });
    }
    const stopped: StoppedRun[] = [];
    for (const runId of await this.deps.backfills.liveRuns(workspaceId, batchId)) {
      const result = await this.deps.ledger.stop(ctx, runId).catch((error: unknown) => {
        // One that ended meanwhile is left as it ended.
        if (error instanceof AppError && error.code === ErrorCode.RUN_NOT_ACTIVE) return null;
        throw error;
      });
      if (result) stopped.push(...result.stopped);
    }
    return { batchId, stopped };
  }
}
