import type { ApprovalStore, ResumedRun } from '@switchyard/runs';

/** The approvals of the system of record, as the approvals service closes them (ApprovalStore of @switchyard/runs). */
export type ApprovalRecords = Pick<ApprovalStore, 'expire' | 'dueForExpiry' | 'resumeReady' | 'closeOrphaned'>;

/** The runs parked on a wait that the kill switch held (resumeHeldWaits of @switchyard/runs, decision 0055). */
export interface HeldWaits {
  /** Resumes those of the workspace (or of all) whose wait resolved and whose workspace is unpaused now. */
  resumeHeld(workspaceId: string | null, limit: number): Promise<ResumedRun[]>;
}

/** Delayed expiry jobs (the BullMQ queue `approval-expiry`). */
export interface ExpiryScheduler {
  /** One job per approval, firing when it expires; scheduling an approval again is a no-op. */
  schedule(items: ReadonlyArray<{ approvalId: string; expiresAt: Date }>): Promise<void>;
}

/** Wakes the lanes of resumed runs (RunWaker.wakeOrLeaveToSweep of libs/runs). */
export interface RunResumer {
  /** One job per run, its id unique to this resume (`key`). Never rejects: a lost wake is left to the runner's sweep (false). */
  resume(runs: readonly ResumedRun[], key: string): Promise<boolean>;
}

/** What the service counts. */
export interface ApprovalsMetrics {
  expired(count: number): void;
  resumed(count: number): void;
}
