import { AppError, ErrorCode, MattermostActionContextSchema, type Approval, type MattermostActionRequest, type Role } from '@switchyard/contracts';
import { approvalOutcomeMessage, verifyActionContext } from '@switchyard/core';
import { hasRole } from '../http/auth';
import type { ApprovalDecisions, NotificationStore } from '../notification-ports';
import type { Principal } from '../ports';

/** What a button callback needs. */
export interface MattermostActionDeps {
  notifications: NotificationStore;
  /** Keys that verify button signatures (from SECRETS_KEY and SECRETS_KEY_PREVIOUS); empty: buttons are refused. */
  signingKeys: readonly Uint8Array[];
  decisions: ApprovalDecisions;
  /** A user's display name, for the updated post. */
  userName(userId: string): Promise<string | null>;
}

/** Mattermost's answer to a button: the post's new content and a line for the clicking user only. */
export interface MattermostActionAnswer {
  update: { message: string; props: { attachments: unknown[] } };
  ephemeral_text: string;
}

/**
 * The member a Mattermost user acts as: the linked member with their role
 * now. Principal's token is none (the link is the credential), so tokenId
 * names the link.
 */
export async function linkedPrincipal(notifications: NotificationStore, workspace: { id: string; slug: string }, mattermostUserId: string, needs: Role): Promise<Principal> {
  const member = await notifications.linkedMember(workspace.id, mattermostUserId);
  if (!member) throw new AppError(ErrorCode.INTEGRATION_USER_NOT_LINKED, 'this Mattermost user is not linked to a member of the workspace: run /switchyard link <code>');
  const principal: Principal = { tokenId: `mattermost:${mattermostUserId}`, userId: member.userId, userName: member.name, workspaceId: workspace.id, workspaceSlug: workspace.slug, role: member.role, via: 'mattermost' };
  if (!hasRole(principal, needs)) throw new AppError(ErrorCode.FORBIDDEN, `this action needs the ${needs} role`, { required: needs, actual: member.role });
  return principal;
}

/**
 * An Approve/Deny click (PITFALLS: Mattermost signs nothing): the context's
 * HMAC and expiry are checked first, then the clicking user must be linked
 * to a member with at least `member`, and the decision goes through the
 * approvals decision command (first write wins). A second click on a decided
 * approval changes nothing and shows the recorded outcome.
 */
export async function decideFromButton(deps: MattermostActionDeps, request: MattermostActionRequest, correlationId: string, now = Date.now()): Promise<MattermostActionAnswer> {
  if (deps.signingKeys.length === 0) throw new AppError(ErrorCode.UNAVAILABLE, 'buttons cannot be verified: SECRETS_KEY is not configured on the gateway');
  const context = MattermostActionContextSchema.safeParse(request.context);
  if (!context.success || !verifyActionContext(deps.signingKeys, context.data)) throw new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'the button’s context does not verify');
  const { approvalId, workspace: slug, decision, exp } = context.data;
  if (exp <= now) throw new AppError(ErrorCode.INTEGRATION_CONTEXT_EXPIRED, 'this button has expired', { expiredAt: new Date(exp).toISOString() });
  const workspace = await deps.notifications.workspaceBySlug(slug);
  if (!workspace) throw new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'the button’s workspace no longer exists');
  const principal = await linkedPrincipal(deps.notifications, workspace, request.user_id, 'member');
  let approval: Approval;
  let already = false;
  try {
    approval = await deps.decisions.decide(principal, approvalId, { decision }, correlationId);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== ErrorCode.APPROVAL_ALREADY_DECIDED) throw error;
    approval = error.data as Approval;
    already = true;
  }
  const name = approval.decidedBy?.type === 'member' ? (approval.decidedBy.name ?? (await deps.userName(approval.decidedBy.userId))) : null;
  const { workspace: _slug, ...payload } = approval;
  const rendered = approvalOutcomeMessage(payload, workspace.slug, name);
  return {
    update: { message: rendered.message, props: { attachments: rendered.attachments ?? [] } },
    ephemeral_text: already ? `This approval was already ${approval.status}.` : `You ${decision === 'approve' ? 'approved' : 'denied'} the request.`,
  };
}
