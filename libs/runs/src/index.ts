/**
 * `@switchyard/runs`: the run lifecycle (decision 0044). Its protocol is the PL/pgSQL in `sql/`,
 * one current file per function, applied by generated migrations; this package is the one
 * TypeScript side of it: the ports, the lane names, the SQL adapter and the parsing of what the
 * functions return. Test doubles are in `src/testing` (re-exported by `@switchyard/testing`).
 */
export { functionDrift, type FunctionDrift } from './function-drift';
export { agentLane, sessionLane, tryLane } from './lanes';
export type {
  ApprovalParking,
  ApprovalRequest,
  Claimed,
  Ended,
  ParkOutcome,
  RunContext,
  RunEnding,
  RunQueue,
  RunRef,
  SpendLedger,
  SpendStanding,
  StartedRun,
  StopReason,
} from './ports';
export { claimedFromRow, parseClaimed, parseEnded, parseRow, runContextFromRow } from './queue-rows';
export { SqlRunQueue, type SqlRunQueueOptions } from './sql-run-queue';
export { commitTeammateDelivery, wakeOrphanTeammate, wakeTeammate, wakeTeammateAfter } from './teammate-wake';
export {
  ApprovalStore,
  closeRunApprovals,
  lockRunLane,
  resumeIfReady,
  type ApprovalDecisionInput,
  type ApprovalListFilter,
  type ApprovalPage,
  type ApprovalWorkspace,
  type ClosedApproval,
  type DecideResult,
  type ResumedRun,
} from './approvals/approval-store';
export { SqlApprovalParking } from './approvals/approval-parking';
export { createQueuedRun, insertBackfillRuns, insertTriggerRuns, laneOfNewRun, type NewRun, type NewTriggerRun } from './create-runs';
export { activeDescendants, failQueuedRun, stopRun, stopTeammateTurns, type RunRow, type StopRunOutcome } from './stop-runs';
export { SqlSpendLedger } from './spend-ledger';
export { RunWaker, type ActivationTransport, type Wake, type WakeLog } from './wake';
export { SqlWaitParking, type WaitParkOutcome, type WaitRequest } from './waits/wait-parking';
export { SqlWaitBook, type ResumedWait, type WorkspaceFact } from './waits/wait-book';
export { closeRunWaits } from './waits/close-waits';
export { resumeHeldWaits } from './waits/held-waits';
export { waitPredicate, type WaitSpec } from './waits/wait-match';
export { BackfillBatches } from './backfill/backfill-batches';
export { planBackfill, type BackfillPlan, type BackfillTarget } from './backfill/backfill-plan';
