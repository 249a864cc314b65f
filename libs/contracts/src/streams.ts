/**
 * Names of the Redis streams and consumer groups. Keys are built from these
 * with `toKey` in `@switchyard/redis`, under the configured prefix.
 */
export const STREAMS = {
  /** Facts accepted by the gateway, not yet persisted. Consumed by event-log. */
  ingest: 'ingest',
  /** Facts persisted in PostgreSQL, with their `seq`. Trimmed `MAXLEN ~`. */
  facts: 'facts',
} as const;

/**
 * The stream of one session's mailbox (messages from people, teammates and
 * facts), drained by the run's loop at every step. Read with XREAD after the
 * last id the loop saw (no group: one reader, the session's run); trimmed by
 * the reader once read. Parts for `toKey(prefix, ...mailboxStream(id))`.
 */
export function mailboxStream(sessionId: string): readonly [string, string] {
  return ['mailbox', sessionId];
}

/** The one field of a mailbox entry: a MailboxEnvelope as JSON. */
export const MAILBOX_FIELD = 'envelope';

/** Consumer groups, one per consuming service. */
export const GROUPS = {
  eventLog: 'event-log',
  matcher: 'matcher',
  notifier: 'notifier',
  approvals: 'approvals',
  /** The notifier's export of ended runs' traces (decision 0057), apart from its notifications. */
  traces: 'traces',
  /** Retired: the matcher's second group, for delegation returns, until they joined its own batches (decision 0032); destroyed at start. */
  retiredDelegationReturns: 'delegation-returns',
} as const;

export type StreamName = (typeof STREAMS)[keyof typeof STREAMS];
export type GroupName = (typeof GROUPS)[keyof typeof GROUPS];
