import { APPROVAL_FACT_KINDS, WORKSPACE_FACT_KINDS, type FactPublishedMessage } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { ResumedRun } from '@switchyard/runs';
import type { Logger } from '@switchyard/logging';
import { z } from 'zod';
import type { ApprovalRecords, ApprovalsMetrics, ExpiryScheduler, HeldWaits, RunResumer } from './ports';

/** Options of ApprovalKeeper. */
export interface ApprovalKeeperOptions {
  records: ApprovalRecords;
  /** Runs parked on a wait for a fact that the kill switch held (decision 0055): resumed on the same unpause and sweep. */
  waits: HeldWaits;
  expiries: ExpiryScheduler;
  resumer: RunResumer;
  log: Logger;
  metrics: ApprovalsMetrics;
  /** Most rows each part of a sweep handles per round. @defaultValue 500 */
  sweepBatch?: number;
}

/** What the keeper reads of an `approval.requested` payload: when to expire it. */
const RequestedPayloadSchema = z.object({ status: z.string(), expiresAt: z.iso.datetime() });
/** What it reads of `workspace.settings_changed`: whether the kill switch went off. */
const SettingsPayloadSchema = z.object({ agentsPaused: z.boolean() });

/**
 * The approvals service's work (decision 0025): schedules each requested
 * approval's expiry, expires approvals when their time is up (a conditional
 * update: a decision that came first wins), resumes the runs the kill switch
 * held once their workspace is unpaused (parked on approvals, or on a wait
 * for a fact resolved meanwhile), and sweeps what a lost job or a
 * stop racing a park left behind. Every step is idempotent: facts may be
 * delivered again, jobs may run twice, several processes may sweep at once.
 */
export class ApprovalKeeper {
  private readonly sweepBatch: number;

  constructor(private readonly options: ApprovalKeeperOptions) {
    this.sweepBatch = options.sweepBatch ?? 500;
  }

  /** A batch of `facts`: expiries to schedule, workspaces unpaused. */
  async handleFacts(messages: readonly FactPublishedMessage[]): Promise<void> {
    const expiries: Array<{ approvalId: string; expiresAt: Date }> = [];
    const unpaused: Array<{ workspaceId: string; factId: string }> = [];
    for (const { fact, workspaceId } of messages) {
      if (fact.kind === APPROVAL_FACT_KINDS.requested) {
        const payload = RequestedPayloadSchema.safeParse(fact.payload);
        // A request not pending (approvals: "deny" records it decided) has nothing to expire; the sweep covers a payload this cannot read.
        if (payload.success && payload.data.status === 'pending') expiries.push({ approvalId: fact.subject.id, expiresAt: new Date(payload.data.expiresAt) });
        else if (!payload.success) this.options.log.warn({ factId: fact.id }, 'approval.requested payload not readable; the sweep expires it');
      } else if (fact.kind === WORKSPACE_FACT_KINDS.settingsChanged) {
        const payload = SettingsPayloadSchema.safeParse(fact.payload);
        if (payload.success && !payload.data.agentsPaused) unpaused.push({ workspaceId, factId: fact.id });
      }
    }
    await this.options.expiries.schedule(expiries);
    for (const { workspaceId, factId } of unpaused) {
      await this.resumeAll(await this.options.records.resumeReady(workspaceId, this.sweepBatch), factId);
      await this.resumeAll(await this.options.waits.resumeHeld(workspaceId, this.sweepBatch), factId);
    }
  }

  /** The expiry job of one approval. */
  async expire(approvalId: string): Promise<void> {
    const closed = await this.options.records.expire(approvalId, `expiry:${approvalId}`);
    if (!closed) return;
    this.options.metrics.expired(1);
    if (closed.resumed) await this.resumeAll([closed.resumed], approvalId);
  }

  /**
   * Expires the pending approvals past their time (their job was lost),
   * closes those of stopped runs, and resumes ready parked runs of unpaused
   * workspaces, approvals' and waits' (a lost `workspace.settings_changed`).
   */
  async sweep(): Promise<void> {
    for (const id of await this.options.records.dueForExpiry(this.sweepBatch)) await this.expire(id);
    await this.options.records.closeOrphaned(this.sweepBatch);
    const key = `sweep-${newId()}`;
    await this.resumeAll(await this.options.records.resumeReady(null, this.sweepBatch), key);
    await this.resumeAll(await this.options.waits.resumeHeld(null, this.sweepBatch), key);
  }

  /** Wakes the resumed runs' lanes (a lost wake is the runner's sweep's: the resumer never rejects). */
  private async resumeAll(runs: readonly ResumedRun[], key: string): Promise<void> {
    if (runs.length === 0) return;
    this.options.metrics.resumed(runs.length);
    await this.options.resumer.resume(runs, key);
  }
}
