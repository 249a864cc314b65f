import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode, MattermostActionContextSchema, type Approval, type MattermostActionContext, type MattermostActionRequest, type Role } from '@switchyard/contracts';
import { approvalOutcomeMessage, neutralize, signActionContext, verifyActionContext, type MattermostRest } from '@switchyard/core';
import { hasRole } from '../http/auth';
import type { ApprovalDecisions, ConfirmationNonces, NotificationStore } from '../notification-ports';
import { openConnection } from './notification-settings';
import type { Principal } from '../auth-ports';

/** What a button callback needs. */
export interface MattermostActionDeps {
  notifications: NotificationStore;
  /** Keys that verify button signatures (from SECRETS_KEY and SECRETS_KEY_PREVIOUS); empty: buttons are refused. The first signs confirmations. */
  signingKeys: readonly Uint8Array[];
  decisions: ApprovalDecisions;
  /** A user's display name, for the updated post. */
  userName(userId: string): Promise<string | null>;
  /** A workspace secret's plaintext: the bot token that posts a confirmation (null without SECRETS_KEY). */
  readSecret: ((workspaceId: string, name: string) => Promise<string | null>) | null;
  /** Posts a confirmation to the clicking user alone. */
  mattermost: Pick<MattermostRest, 'createEphemeralPost'>;
  /** Single use of confirmations. */
  nonces: ConfirmationNonces;
}

/** Mattermost's answer to a button: the post's new content and a line for the clicking user only (either may be absent). */
export interface MattermostActionAnswer {
  update?: { message: string; props: { attachments: unknown[] } };
  ephemeral_text?: string;
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

/** How long a confirmation may wait for its click (never past the approval's expiry). */
export const CONFIRMATION_TTL_MS = 5 * 60_000;

/**
 * A button click (PITFALLS: Mattermost signs nothing, so the callback's
 * `user_id` is only as good as the caller). The context's HMAC and expiry
 * are checked first. A channel post's button decides nothing: it posts the
 * clicking user, alone, a confirmation signed for that Mattermost user and
 * the member it is linked to (decision 0043). The confirmation decides —
 * once, and only when clicked by that user still linked to that member —
 * through the approvals decision command (first write wins); a click on a
 * decided approval changes nothing and shows the recorded outcome.
 */
export async function decideFromButton(deps: MattermostActionDeps, request: MattermostActionRequest, correlationId: string, now = Date.now()): Promise<MattermostActionAnswer> {
  if (deps.signingKeys.length === 0) throw new AppError(ErrorCode.UNAVAILABLE, 'buttons cannot be verified: SECRETS_KEY is not configured on the gateway');
  const parsed = MattermostActionContextSchema.safeParse(request.context);
  if (!parsed.success || !verifyActionContext(deps.signingKeys, parsed.data)) throw new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'the button’s context does not verify');
  const context = parsed.data;
  if (context.exp <= now) throw new AppError(ErrorCode.INTEGRATION_CONTEXT_EXPIRED, 'this button has expired', { expiredAt: new Date(context.exp).toISOString() });
  const workspace = await deps.notifications.workspaceBySlug(context.workspace);
  if (!workspace) throw new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'the button’s workspace no longer exists');
  if (context.userId !== undefined) return decideConfirmed(deps, workspace, context, request, correlationId, now);
  if (context.url === undefined) {
    throw new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'this button was posted before confirmations (decision 0043): decide in the web UI or with /switchyard approve|deny');
  }
  return askToConfirm(deps, workspace, { ...context, url: context.url }, request, now);
}

/** A channel button's click: the confirmation, posted to the clicking user alone, signed for them and their member. */
async function askToConfirm(
  deps: MattermostActionDeps,
  workspace: { id: string; slug: string },
  context: MattermostActionContext & { url: string },
  request: MattermostActionRequest,
  now: number,
): Promise<MattermostActionAnswer> {
  const principal = await linkedPrincipal(deps.notifications, workspace, request.user_id, 'member');
  const userId = MattermostActionContextSchema.shape.userId.safeParse(request.user_id);
  if (!userId.success || !request.channel_id) throw new AppError(ErrorCode.VALIDATION_FAILED, 'a button click names its user and channel', { fields: ['user_id', 'channel_id'] });
  const settings = await deps.notifications.getSettings(workspace.id);
  if (settings?.connection?.type !== 'bot') throw new AppError(ErrorCode.NOTIFICATIONS_NOT_CONFIGURED, 'a confirmation is posted by the bot: the workspace has no bot connection');
  const target = await openConnection(deps, workspace.id, settings.connection);
  const confirm = signActionContext(deps.signingKeys[0]!, {
    approvalId: context.approvalId,
    workspace: workspace.slug,
    decision: context.decision,
    exp: Math.min(context.exp, now + CONFIRMATION_TTL_MS),
    url: context.url,
    userId: request.user_id,
    memberId: principal.userId!,
    nonce: randomBytes(16).toString('base64url'),
  });
  const name = (principal.userId && (await deps.userName(principal.userId))) ?? 'your linked member';
  const verb = context.decision === 'approve' ? 'Approve' : 'Deny';
  const posted = await deps.mattermost.createEphemeralPost(target as Extract<typeof target, { type: 'bot' }>, request.user_id, {
    channel_id: request.channel_id,
    message: `${verb} approval \`${context.approvalId}\` in \`${workspace.slug}\` as **${neutralize(name)}**? Only you see this; it is valid for ${CONFIRMATION_TTL_MS / 60_000} minutes.`,
    props: { attachments: [{ fallback: `Confirm: ${verb}`, actions: [{ id: 'confirm', name: `Confirm: ${verb}`, type: 'button', style: context.decision === 'approve' ? 'success' : 'danger', integration: { url: context.url, context: { ...confirm } } }] }] },
  });
  if (!posted.ok) throw new AppError(ErrorCode.UNAVAILABLE, 'the confirmation could not be posted to Mattermost', { status: posted.status, message: posted.message });
  return {};
}

/** A confirmation's click: by the Mattermost user it was issued for, still linked to its member, once. */
async function decideConfirmed(
  deps: MattermostActionDeps,
  workspace: { id: string; slug: string },
  context: MattermostActionContext,
  request: MattermostActionRequest,
  correlationId: string,
  now: number,
): Promise<MattermostActionAnswer> {
  if (context.memberId === undefined || context.nonce === undefined) throw new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'the confirmation is incomplete');
  if (context.userId !== request.user_id) throw new AppError(ErrorCode.INTEGRATION_CONTEXT_USER_MISMATCH, 'this confirmation was issued to another Mattermost user', { reason: 'user' });
  const principal = await linkedPrincipal(deps.notifications, workspace, request.user_id, 'member');
  if (principal.userId !== context.memberId) throw new AppError(ErrorCode.INTEGRATION_CONTEXT_USER_MISMATCH, 'this Mattermost user is linked to another member now', { reason: 'member' });
  if (!(await deps.nonces.use(context.nonce, context.exp - now))) throw new AppError(ErrorCode.INTEGRATION_CONTEXT_REPLAYED, 'this confirmation was used already');
  let approval: Approval;
  let already = false;
  try {
    approval = await deps.decisions.decide(principal, context.approvalId, { decision: context.decision }, correlationId);
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
    ephemeral_text: already ? `This approval was already ${approval.status}.` : `You ${context.decision === 'approve' ? 'approved' : 'denied'} the request.`,
  };
}
