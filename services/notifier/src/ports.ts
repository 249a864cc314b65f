import type { ApprovalFactPayload, NotificationJob, NotificationSettings } from '@switchyard/contracts';

/** A delivery recorded: one fact posted through one rule. */
export interface DeliveryRecord {
  factId: string;
  ruleId: string;
  channel: string | null;
  postId: string | null;
}

/** What the notifier reads and writes in PostgreSQL. */
export interface NotifierStore {
  /** Saved settings of these workspaces (absent: never saved, nothing is sent), with each workspace's slug. */
  settingsOf(workspaceIds: readonly string[]): Promise<Map<string, { slug: string; settings: NotificationSettings }>>;
  /** Posts made for a subject (`approval:<id>`) of a workspace. */
  deliveriesOf(workspaceId: string, subject: string): Promise<DeliveryRecord[]>;
  delivery(factId: string, ruleId: string): Promise<DeliveryRecord | null>;
  /** Records a delivery once; a second record of the same (fact, rule) changes nothing. */
  recordDelivery(record: DeliveryRecord & { workspaceId: string; subject: string }): Promise<void>;
  /** An approval as it is now (null: unknown), so a post made late shows the outcome, not buttons. */
  approval(workspaceId: string, approvalId: string): Promise<ApprovalFactPayload | null>;
  /** A user's display name. */
  userName(userId: string): Promise<string | null>;
  /** An agent's name now (null: unknown in that workspace), so an approval's post names who asks. */
  agentName(workspaceId: string, agentId: string): Promise<string | null>;
  /** A workspace secret's plaintext, or null when absent. */
  secret(workspaceId: string, name: string): Promise<string | null>;
}

/** Where deliveries go: the BullMQ queue `notifications` (job id = the delivery's key: added once). */
export interface JobSink {
  add(jobs: ReadonlyArray<{ id: string; job: NotificationJob }>): Promise<void>;
}
