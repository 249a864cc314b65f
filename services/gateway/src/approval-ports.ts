import type { ApprovalStore } from '@switchyard/runs';

/** The approvals of the system of record, as the gateway reads and decides them (ApprovalStore of @switchyard/runs). */
export type ApprovalsPort = Pick<ApprovalStore, 'list' | 'get' | 'decide'>;
