import type { Approval, DecideApprovalRequest, NotificationSettings, Role, RunStatus } from '@switchyard/contracts';
import type { Principal } from './auth-ports';
import type { FactsOf } from './fact-ports';

/** A save of the notification settings: what they were (null: never saved) and are. Saves of a workspace are serialized. */
export interface NotificationSettingsSave {
  before: NotificationSettings | null;
  after: NotificationSettings;
}

/** A Mattermost link made or removed: the member it acts (or acted) as, named, and the most it acts with. */
export interface MattermostLinkChange {
  userId: string;
  /** The member's display name (null when unknown). */
  userName: string | null;
  role: Role;
  /** Made: the member this Mattermost user was linked to before (null: none). */
  previousUserId?: string | null;
}

/** Notification settings and the Mattermost links of members (the gateway writes both). */
export interface NotificationStore {
  /** The saved settings, or null when never saved. */
  getSettings(workspaceId: string): Promise<NotificationSettings | null>;
  /** Saves them with the facts `facts` gives for the save in its transaction. */
  putSettings(workspaceId: string, settings: NotificationSettings, facts: FactsOf<NotificationSettingsSave>): Promise<NotificationSettings>;
  /**
   * Saves what `change` makes of the settings as they are (null before any save), under the same
   * lock as every save, with the facts `facts` gives; `change` answering null saves nothing (null).
   */
  updateSettings(
    workspaceId: string,
    change: (before: NotificationSettings | null) => NotificationSettings | null,
    facts: FactsOf<NotificationSettingsSave>,
  ): Promise<NotificationSettings | null>;
  /** Stores a link code's SHA-256 for the member; the link it makes never acts above `maxRole` (the asking token's). */
  issueLinkCode(workspaceId: string, userId: string, maxRole: Role, codeHash: string, expiresAt: Date): Promise<void>;
  /**
   * Uses a code (once, before its expiry) and links the Mattermost user to
   * the code's member, replacing an earlier link of that Mattermost user,
   * with the facts `facts` gives in its transaction. Null (nothing recorded)
   * when the code is unknown, used or expired.
   */
  consumeLinkCode(workspaceId: string, codeHash: string, mattermostUserId: string, facts: FactsOf<MattermostLinkChange>): Promise<{ userId: string } | null>;
  /** Removes the Mattermost user's link with the facts `facts` gives in its transaction; false (nothing recorded) when it had none. */
  unlink(workspaceId: string, mattermostUserId: string, facts: FactsOf<MattermostLinkChange>): Promise<boolean>;
  /** The member a Mattermost user is linked to, with the lower of their role now and the link's (null: not linked, or no longer a member). */
  linkedMember(workspaceId: string, mattermostUserId: string): Promise<{ userId: string; name: string; role: Role } | null>;
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

/** Single use of Mattermost confirmations (decision 0043). */
export interface ConfirmationNonces {
  /** Marks the nonce used for `ttlMs`; false when it was used already (a replay). */
  use(nonce: string, ttlMs: number): Promise<boolean>;
}
