import { AppError, ErrorCode, type Approval, type DecideApprovalRequest } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { actorOf } from '../change-author';
import type { ApprovalsPort } from '../approval-ports';
import type { Principal } from '../auth-ports';
import type { RunResumer } from '../run-ports';

/** What deciding an approval needs. */
export interface DecideApprovalDeps {
  approvals: Pick<ApprovalsPort, 'decide'>;
  resumer: RunResumer;
  log: Logger;
}

/** Throws FORBIDDEN for a run's agent token: only a person's token decides (no agent approves its own call or a peer's). */
export function assertPerson(principal: Principal): void {
  if (principal.agent) throw new AppError(ErrorCode.FORBIDDEN, 'an agent token cannot decide approvals: a person decides', { agentId: principal.agent.agentId });
}

/**
 * A person's decision on a pending approval, for `POST /approvals/{id}/decision`
 * and the `decide_approval` tool (decision 0025). An agent token is refused
 * whatever its role: no agent approves its own call or a peer's. First write
 * wins: a decision on an approval that is no longer pending is
 * APPROVAL_ALREADY_DECIDED with the approval as recorded. The decision, its
 * `approval.decided` fact and the run's resume commit together; the run's
 * activation is added after the commit, and when that fails the runner's
 * sweep claims the lane later (the resumed run keeps its old place), so the
 * decision still stands.
 */
export async function decideApproval(
  deps: DecideApprovalDeps,
  ctx: { principal: Principal; correlationId: string },
  id: string,
  body: DecideApprovalRequest,
): Promise<Approval> {
  const { principal } = ctx;
  assertPerson(principal);
  const result = await deps.approvals.decide({ id: principal.workspaceId, slug: principal.workspaceSlug }, id, {
    status: body.decision === 'approve' ? 'approved' : 'denied',
    // A linked Mattermost user decides with no API token: only a token's id is recorded as one.
    decidedBy: {
      type: 'member',
      userId: principal.userId,
      ...(principal.via ? {} : { tokenId: principal.tokenId }),
      ...(principal.userName ? { name: principal.userName.slice(0, 256) } : {}),
    },
    note: body.note ?? null,
    actor: actorOf(principal),
    correlationId: ctx.correlationId,
  });
  if (!result.ok) {
    if (result.reason === 'not_found') throw new AppError(ErrorCode.APPROVAL_NOT_FOUND, 'no such approval in this workspace', { id });
    throw new AppError(ErrorCode.APPROVAL_ALREADY_DECIDED, `the approval is already ${result.approval.status}`, result.approval);
  }
  // The resume is committed: a lost wake is left to the runner's sweep (the resumer never rejects).
  if (result.resumed) await deps.resumer.resume([result.resumed], id);
  return result.approval;
}
