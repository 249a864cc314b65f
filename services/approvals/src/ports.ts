import type { ApprovalStore, ResumedRun } from '@switchyard/runs';

/** The approvals of the system of record, as the approvals service closes them (ApprovalStore of @switchyard/runs). */
export type ApprovalRecords = Pick<ApprovalStore, 'expire' | 'dueForExpiry' | 'resumeReady' | 'closeOrphaned'>;

/** Delayed expiry jobs (the BullMQ queue `approval-expiry`). */
export interface ExpiryScheduler {
  /** One job per approval, firing when it expires; scheduling an approval again is a no-op. */
  schedule(items: ReadonlyArray<{ approvalId: string; expiresAt: Date }>): Promise<void>;
}

/** Wakes the lanes of resumed runs (the BullMQ queue `activations`). */
export interface RunResumer {
  /** One job per run, its id unique to this resume (`key`). */
  resume(runs: readonly ResumedRun[], key: string): Promise<void>;
}

/** What the service counts. */
export interface ApprovalsMetrics {
  expired(count: number): void;
  resumed(count: number): void;
}
