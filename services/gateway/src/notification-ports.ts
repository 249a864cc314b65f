import type { Approval, DecideApprovalRequest, NotificationSettings, Role, RunStatus } from '@switchyard/contracts';
import type { Principal } from './ports';

/** Notification settings and the Mattermost links of members (the gateway writes both). */
export interface NotificationStore {
  /** The saved settings, or null when never saved. */
  getSettings(workspaceId: string): Promise<NotificationSettings | null>;
  putSettings(workspaceId: string, settings: NotificationSettings): Promise<NotificationSettings>;
  /** Stores a link code's SHA-256 for the member; the link it makes never acts above `maxRole` (the asking token's). */
  issueLinkCode(workspaceId: string, userId: string, maxRole: Role, codeHash: string, expiresAt: Date): Promise<void>;
  /**
   * Uses a code (once, before its expiry) and links the Mattermost user to
   * the code's member, replacing an earlier link of that Mattermost user.
   * Null when the code is unknown, used or expired.
   */
  consumeLinkCode(workspaceId: string, codeHash: string, mattermostUserId: string): Promise<{ userId: string } | null>;
  /** The member a Mattermost user is linked to, with the lower of their role now and the link's (null: not linked, or no longer a member). */
  linkedMember(workspaceId: string, mattermostUserId: string): Promise<{ userId: string; role: Role } | null>;
  workspaceBySlug(slug: string): Promise<{ id: string; slug: string } | null>;
}

/** What `/switchyard status|runs|approvals` reads. */
export interface WorkspaceOverviewReader {
  runCounts(workspaceId: string): Promise<Partial<Record<RunStatus, number>>>;
  recentRuns(workspaceId: string, agentName: string | null, limit: number): Promise<Array<{ id: string; agentName: string; status: RunStatus; reason: string | null; queuedAt: Date }>>;
  pendingApprovals(workspaceId: string, limit: number): Promise<Approval[]>;
}

/**
 * The approvals decision command (`POST /v1/workspaces/{ws}/approvals/{id}/decision`,
 * first write wins): what buttons and slash commands decide through.
 * Throws APPROVAL_NOT_FOUND, APPROVAL_ALREADY_DECIDED (with the approval as recorded).
 */
export interface ApprovalDecisions {
  decide(principal: Principal, approvalId: string, request: DecideApprovalRequest, correlationId: string): Promise<Approval>;
}
