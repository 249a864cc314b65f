import { AppError, ErrorCode, ApprovalIdSchema, type Approval, type ListApprovalsQuery } from '@switchyard/contracts';
import type { ApprovalPage } from '@switchyard/runs';
import type { ApprovalsPort } from '../approval-ports';
import type { Principal } from '../auth-ports';

/**
 * A page of the workspace's approvals, oldest first, for `GET /approvals` and
 * `list_approvals`. The cursor is the last approval id of the previous page:
 * anything else is VALIDATION_FAILED, and an id of no approval of this
 * workspace gives an empty page.
 */
export async function listApprovals(approvals: Pick<ApprovalsPort, 'list'>, principal: Principal, query: ListApprovalsQuery): Promise<ApprovalPage> {
  if (query.after !== undefined && !ApprovalIdSchema.safeParse(query.after).success) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 'invalid query', [{ code: 'custom', path: ['after'], message: 'after must be the nextCursor of the previous page (an approval id)' }]);
  }
  return approvals.list({ id: principal.workspaceId, slug: principal.workspaceSlug }, query);
}

/** One approval of the workspace; APPROVAL_NOT_FOUND for an unknown id or another workspace's. */
export async function getApproval(approvals: Pick<ApprovalsPort, 'get'>, principal: Principal, id: string): Promise<Approval> {
  const approval = await approvals.get({ id: principal.workspaceId, slug: principal.workspaceSlug }, id);
  if (!approval) throw new AppError(ErrorCode.APPROVAL_NOT_FOUND, 'no such approval in this workspace', { id });
  return approval;
}
