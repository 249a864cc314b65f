import type { MailboxEnvelope, RunStatus } from '@switchyard/contracts';

/** What steering reads from the system of record: a session (as the runs that have it) and who is writing. */
export interface SteeringStore {
  /** Statuses of the workspace's runs in the session; empty when it has none (unknown, or another workspace's). */
  sessionRunStatuses(workspaceId: string, sessionId: string): Promise<RunStatus[]>;
  /** The display name of a user, to attribute their message; null when unknown. */
  userName(userId: string): Promise<string | null>;
}

/** The sessions' mailboxes (Redis streams the run loop drains). */
export interface Mailbox {
  /**
   * Appends the envelope to its session's mailbox: `delivered`, or `closed`
   * when the session's run already closed it with its last drain (nothing is
   * written: the message would never be read). Rejects when Redis does not answer.
   */
  post(envelope: MailboxEnvelope): Promise<'delivered' | 'closed'>;
  /** A teammate's session: resident (its mailbox outlives each turn) and idle (decision 0035). */
  makeResident(sessionId: string): Promise<void>;
  /** A stopped teammate's session: closed, expiring like any ended run's. */
  retire(sessionId: string): Promise<void>;
  /** Posts to a resident session: `woke` when no turn would read it (the caller queues one), else `delivered`. */
  postResident(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'>;
  /** Counts one more message sent by the run (send_message's per-run cap); returns the count so far. */
  countSent(runId: string): Promise<number>;
  /** Takes one of the run's `max` delegations (atomic per run); false past the cap (decision 0059). */
  takeDelegation(runId: string, max: number): Promise<boolean>;
  /** Gives back a delegation taken for a child that was not started. */
  releaseDelegation(runId: string): Promise<void>;
}
