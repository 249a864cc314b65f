import type { AgentMessageHealth, AgentMessageObservation, AgentMessagePost, AgentMessageSender, QuarantinedAgentMessage, QuarantineReason, SenderSequence } from '@switchyard/contracts';
import type { QuarantineFacts } from '@switchyard/core';
import type { SqlRunner } from './sql-pool';

/** What the store keeps of a quarantined post (decision 0047): the screen's bounded facts, never its body or content. */
export interface QuarantineRecord extends QuarantineFacts {
  /** The record's id, derived by the caller from (workspace, sender, reason, body hash): a retried post finds it again. */
  id: string;
}

/** What becomes of an envelope that passed screening. */
export type ObserveOutcome =
  | { disposition: 'observed' | 'replayed'; seq: number }
  /** Another envelope holds this messageId already (another sender or other content). */
  | { disposition: 'duplicate_message' };

/** One envelope to observe: the producer's post, its sender and what screening measured. */
export interface Observable {
  workspaceId: string;
  post: AgentMessagePost;
  sender: AgentMessageSender;
  contentSha256: string;
  contentChars: number;
  receivedAt: Date;
  /** When the content row may be deleted. */
  retainUntil: Date;
}

/** What a run's digest reads: where the cursor ends, how many notes are new, and the newest of them. */
export interface DigestRead {
  lastSeq: number;
  total: number;
  notes: { seq: number; thread: string; topic: string; sender: AgentMessageSender; content: string }[];
}

const UNIQUE_VIOLATION = '23505';

/** What senderSeq is scoped to: one run of an agent, or one member. */
export const senderKeyOf = (sender: AgentMessageSender) => (sender.type === 'agent' ? `agent:${sender.id}:${sender.runId}` : `member:${sender.id}`);

const OBSERVATION_COLUMNS = `seq, message_id, sender_type, sender_id, sender_run_id, sender_session, sender_seq, previous_sender_seq, sequence,
  thread, topic, created_at, expires_at, received_at, observed_at, content_sha256, content_chars, deliveries`;

interface ObservationRow {
  seq: string;
  message_id: string;
  sender_type: string;
  sender_id: string;
  sender_run_id: string | null;
  sender_session: string | null;
  sender_seq: string;
  previous_sender_seq: string | null;
  sequence: SenderSequence;
  thread: string;
  topic: string;
  created_at: Date;
  expires_at: Date;
  received_at: Date;
  observed_at: Date;
  content_sha256: string;
  content_chars: number;
  deliveries: number;
}

const senderOf = (row: { sender_type: string; sender_id: string; sender_run_id: string | null; sender_session: string | null }): AgentMessageSender =>
  row.sender_type === 'agent'
    ? { type: 'agent', id: row.sender_id, runId: row.sender_run_id ?? '', ...(row.sender_session ? { session: row.sender_session } : {}) }
    : { type: 'member', id: row.sender_id };

function observationOf(row: ObservationRow): AgentMessageObservation {
  return {
    seq: Number(row.seq),
    messageId: row.message_id,
    sender: senderOf(row),
    senderSeq: Number(row.sender_seq),
    previousSenderSeq: row.previous_sender_seq === null ? null : Number(row.previous_sender_seq),
    sequence: row.sequence,
    thread: row.thread,
    topic: row.topic,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    receivedAt: row.received_at.toISOString(),
    observedAt: row.observed_at.toISOString(),
    contentSha256: row.content_sha256,
    contentChars: row.content_chars,
    deliveries: row.deliveries,
  };
}

/**
 * One statement stores an observation and its content: it locks the
 * workspace's cursor row (dense seqs committed in order, decision 0002's
 * discipline), reads the sender's previous senderSeq for the gap/regression
 * metadata, and inserts both rows. A messageId already stored fails the whole
 * statement on the unique index, so no seq is spent.
 */
const OBSERVE_SQL = `
WITH prev AS (
  SELECT sender_seq FROM agent_message_observations
  WHERE workspace_id = $1::uuid AND sender_key = $2 ORDER BY seq DESC LIMIT 1
), counter AS (
  INSERT INTO agent_message_cursors (workspace_id, last_seq) VALUES ($1::uuid, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET last_seq = agent_message_cursors.last_seq + 1
  RETURNING last_seq
), obs AS (
  INSERT INTO agent_message_observations (workspace_id, seq, message_id, sender_type, sender_id, sender_run_id, sender_session, sender_key,
    sender_seq, previous_sender_seq, sequence, thread, topic, created_at, expires_at, received_at, content_sha256, content_chars)
  SELECT $1::uuid, counter.last_seq, $3, $4, $5, $6, $7, $2, $8::bigint, p.sender_seq,
    CASE WHEN p.sender_seq IS NULL THEN 'first' WHEN $8::bigint = p.sender_seq + 1 THEN 'next' WHEN $8::bigint > p.sender_seq THEN 'gap'
         WHEN $8::bigint = p.sender_seq THEN 'repeat' ELSE 'regression' END,
    $9, $10, $11::timestamptz, $12::timestamptz, $13::timestamptz, $14, $15::int
  FROM counter LEFT JOIN prev p ON true
  RETURNING seq
), content AS (
  INSERT INTO agent_message_contents (workspace_id, message_id, content, retain_until)
  SELECT $1::uuid, $3, $16, $17::timestamptz FROM obs
)
SELECT seq FROM obs`;

/**
 * Many new envelopes of one workspace in one statement and one commit: the
 * cursor row is locked once and advanced by their number; each row's previous
 * senderSeq is the one before it in the batch from the same sender, or the
 * sender's last stored one. Any messageId already stored fails the whole
 * statement (nothing written, no seq spent): the caller then observes them one by one.
 */
const OBSERVE_MANY_SQL = `
WITH input AS (
  SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[],
    $11::timestamptz[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::int[], $16::text[], $17::timestamptz[])
    WITH ORDINALITY AS i(message_id, sender_key, sender_type, sender_id, sender_run_id, sender_session, sender_seq, thread, topic,
      created_at, expires_at, received_at, content_sha256, content_chars, content, retain_until, ord)
), counter AS (
  INSERT INTO agent_message_cursors (workspace_id, last_seq) VALUES ($1::uuid, $18::bigint)
  ON CONFLICT (workspace_id) DO UPDATE SET last_seq = agent_message_cursors.last_seq + $18::bigint
  RETURNING last_seq
), numbered AS (
  SELECT i.*, c.last_seq - $18::bigint + i.ord AS seq,
    COALESCE(lag(i.sender_seq) OVER (PARTITION BY i.sender_key ORDER BY i.ord),
      (SELECT o.sender_seq FROM agent_message_observations o WHERE o.workspace_id = $1::uuid AND o.sender_key = i.sender_key ORDER BY o.seq DESC LIMIT 1)) AS prev
  FROM input i CROSS JOIN counter c
), obs AS (
  INSERT INTO agent_message_observations (workspace_id, seq, message_id, sender_type, sender_id, sender_run_id, sender_session, sender_key,
    sender_seq, previous_sender_seq, sequence, thread, topic, created_at, expires_at, received_at, content_sha256, content_chars)
  SELECT $1::uuid, n.seq, n.message_id, n.sender_type, n.sender_id, n.sender_run_id, n.sender_session, n.sender_key, n.sender_seq, n.prev,
    CASE WHEN n.prev IS NULL THEN 'first' WHEN n.sender_seq = n.prev + 1 THEN 'next' WHEN n.sender_seq > n.prev THEN 'gap'
         WHEN n.sender_seq = n.prev THEN 'repeat' ELSE 'regression' END,
    n.thread, n.topic, n.created_at, n.expires_at, n.received_at, n.content_sha256, n.content_chars
  FROM numbered n ORDER BY n.ord
  RETURNING seq, message_id
), content AS (
  INSERT INTO agent_message_contents (workspace_id, message_id, content, retain_until)
  SELECT $1::uuid, n.message_id, n.content, n.retain_until FROM numbered n
)
SELECT seq, message_id FROM obs`;

/**
 * The agent-message observation plane's storage (decision 0047): observations
 * with their cursor, contents apart, and quarantine. The gateway writes; the
 * gateway's reads and the runner's digest read. Every query is scoped to a workspace.
 */
export class AgentMessageStore {
  constructor(private readonly sql: SqlRunner) {}

  /**
   * Observes an envelope once: a new messageId is stored; the same envelope
   * again (same sender, senderSeq and content) is a replay, counted as a
   * delivery and answered with its first seq; any other envelope with that
   * messageId is a duplicate for the caller to quarantine.
   */
  async observe(input: Observable): Promise<ObserveOutcome> {
    const { post, sender } = input;
    const senderKey = senderKeyOf(sender);
    try {
      const [row] = await this.sql.$queryRawUnsafe<{ seq: string }[]>(
        OBSERVE_SQL,
        input.workspaceId,
        senderKey,
        post.messageId,
        sender.type,
        sender.id,
        sender.type === 'agent' ? sender.runId : null,
        sender.type === 'agent' ? (sender.session ?? null) : null,
        post.senderSeq,
        post.thread,
        post.topic,
        post.createdAt,
        post.expiresAt,
        input.receivedAt,
        input.contentSha256,
        input.contentChars,
        post.content,
        input.retainUntil,
      );
      return { disposition: 'observed', seq: Number(row!.seq) };
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    }
    const [replay] = await this.sql.$queryRawUnsafe<{ seq: string }[]>(
      `UPDATE agent_message_observations SET deliveries = deliveries + 1
       WHERE workspace_id = $1::uuid AND message_id = $2 AND sender_key = $3 AND sender_seq = $4::bigint AND content_sha256 = $5
       RETURNING seq`,
      input.workspaceId,
      post.messageId,
      senderKey,
      post.senderSeq,
      input.contentSha256,
    );
    return replay ? { disposition: 'replayed', seq: Number(replay.seq) } : { disposition: 'duplicate_message' };
  }

  /**
   * Observes envelopes of one workspace, all with distinct messageIds, in one
   * statement: their seqs in input order. Returns null when one of them is
   * stored already (nothing was written): observe them one by one then.
   */
  async observeMany(workspaceId: string, inputs: readonly Observable[]): Promise<number[] | null> {
    const column = <T>(pick: (input: Observable) => T) => inputs.map(pick);
    try {
      const rows = await this.sql.$queryRawUnsafe<{ seq: string; message_id: string }[]>(
        OBSERVE_MANY_SQL,
        workspaceId,
        column((i) => i.post.messageId),
        column((i) => senderKeyOf(i.sender)),
        column((i) => i.sender.type),
        column((i) => i.sender.id),
        column((i) => (i.sender.type === 'agent' ? i.sender.runId : null)),
        column((i) => (i.sender.type === 'agent' ? (i.sender.session ?? null) : null)),
        column((i) => i.post.senderSeq),
        column((i) => i.post.thread),
        column((i) => i.post.topic),
        column((i) => i.post.createdAt),
        column((i) => i.post.expiresAt),
        column((i) => i.receivedAt),
        column((i) => i.contentSha256),
        column((i) => i.contentChars),
        column((i) => i.post.content),
        column((i) => i.retainUntil),
        inputs.length,
      );
      const seqOf = new Map(rows.map((row) => [row.message_id, Number(row.seq)]));
      return inputs.map((input) => seqOf.get(input.post.messageId)!);
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
      throw error;
    }
  }

  /** Records a quarantined post; the same body from the same sender again counts a delivery on its record. */
  async quarantine(workspaceId: string, sender: AgentMessageSender, record: QuarantineRecord, receivedAt: Date): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `INSERT INTO agent_message_quarantine (id, workspace_id, reason, message_id, sender_type, sender_id, sender_run_id, sender_session,
         body_bytes, content_chars, body_sha256, issues, received_at)
       VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9::int, $10::int, $11, $12::text[], $13::timestamptz)
       ON CONFLICT (id) DO UPDATE SET deliveries = agent_message_quarantine.deliveries + 1`,
      record.id,
      workspaceId,
      record.reason,
      record.messageId,
      sender.type,
      sender.id,
      sender.type === 'agent' ? sender.runId : null,
      sender.type === 'agent' ? (sender.session ?? null) : null,
      record.bodyBytes,
      record.contentChars,
      record.bodySha256,
      record.issues.slice(0, 5),
      receivedAt,
    );
  }

  /** The senderSeq the platform gives a sender's next note: one past its last observed one. */
  async nextSenderSeq(workspaceId: string, sender: AgentMessageSender): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<{ sender_seq: string }[]>(
      `SELECT sender_seq FROM agent_message_observations WHERE workspace_id = $1::uuid AND sender_key = $2 ORDER BY seq DESC LIMIT 1`,
      workspaceId,
      senderKeyOf(sender),
    );
    return row ? Number(row.sender_seq) + 1 : 1;
  }

  /** Observations after `since`, in seq order (at most `limit`). */
  async listAfter(workspaceId: string, since: number, limit: number): Promise<AgentMessageObservation[]> {
    const rows = await this.sql.$queryRawUnsafe<ObservationRow[]>(
      `SELECT ${OBSERVATION_COLUMNS} FROM agent_message_observations WHERE workspace_id = $1::uuid AND seq > $2::bigint ORDER BY seq LIMIT $3::int`,
      workspaceId,
      since,
      limit,
    );
    return rows.map(observationOf);
  }

  /** The workspace's newest observation seq (0 when none). */
  async lastSeq(workspaceId: string): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<{ last_seq: string }[]>(`SELECT last_seq FROM agent_message_cursors WHERE workspace_id = $1::uuid`, workspaceId);
    return row ? Number(row.last_seq) : 0;
  }

  /** Quarantine records, newest first. */
  async listQuarantine(workspaceId: string, limit: number): Promise<QuarantinedAgentMessage[]> {
    const rows = await this.sql.$queryRawUnsafe<
      {
        id: string;
        reason: QuarantineReason;
        message_id: string | null;
        sender_type: string;
        sender_id: string;
        sender_run_id: string | null;
        sender_session: string | null;
        body_bytes: number;
        content_chars: number | null;
        body_sha256: string;
        issues: string[] | null;
        deliveries: number;
        received_at: Date;
      }[]
    >(
      `SELECT id, reason, message_id, sender_type, sender_id, sender_run_id, sender_session, body_bytes, content_chars, body_sha256, issues, deliveries, received_at
       FROM agent_message_quarantine WHERE workspace_id = $1::uuid ORDER BY received_at DESC, id LIMIT $2::int`,
      workspaceId,
      limit,
    );
    return rows.map((row) => ({
      id: row.id,
      reason: row.reason,
      messageId: row.message_id,
      sender: senderOf(row),
      bodyBytes: row.body_bytes,
      contentChars: row.content_chars,
      bodySha256: row.body_sha256,
      issues: row.issues ?? [],
      deliveries: row.deliveries,
      receivedAt: row.received_at.toISOString(),
    }));
  }

  /** One note's content and hash while retained; null otherwise. */
  async content(workspaceId: string, messageId: string): Promise<{ content: string; contentSha256: string } | null> {
    const [row] = await this.sql.$queryRawUnsafe<{ content: string; content_sha256: string }[]>(
      `SELECT c.content, o.content_sha256 FROM agent_message_contents c
       JOIN agent_message_observations o ON o.workspace_id = c.workspace_id AND o.message_id = c.message_id
       WHERE c.workspace_id = $1::uuid AND c.message_id = $2 AND c.retain_until > now()`,
      workspaceId,
      messageId,
    );
    return row ? { content: row.content, contentSha256: row.content_sha256 } : null;
  }

  /**
   * For a run's digest (decision 0047): the workspace's newest seq, how many
   * current (unexpired) notes of other senders came after `since`, and the
   * newest `limit` of them with their retained content.
   */
  async digestAfter(workspaceId: string, since: number, excludeSenderKey: string, limit: number): Promise<DigestRead> {
    const lastSeq = await this.lastSeq(workspaceId);
    if (lastSeq <= since) return { lastSeq, total: 0, notes: [] };
    const rows = await this.sql.$queryRawUnsafe<
      { seq: string; thread: string; topic: string; sender_type: string; sender_id: string; sender_run_id: string | null; sender_session: string | null; content: string; total: string }[]
    >(
      `SELECT o.seq, o.thread, o.topic, o.sender_type, o.sender_id, o.sender_run_id, o.sender_session, c.content, count(*) OVER () AS total
       FROM agent_message_observations o
       JOIN agent_message_contents c ON c.workspace_id = o.workspace_id AND c.message_id = o.message_id AND c.retain_until > now()
       WHERE o.workspace_id = $1::uuid AND o.seq > $2::bigint AND o.seq <= $3::bigint AND o.sender_key <> $4 AND o.expires_at > now()
       ORDER BY o.seq DESC LIMIT $5::int`,
      workspaceId,
      since,
      lastSeq,
      excludeSenderKey,
      limit,
    );
    return {
      lastSeq,
      total: rows.length > 0 ? Number(rows[0]!.total) : 0,
      notes: rows.reverse().map((row) => ({ seq: Number(row.seq), thread: row.thread, topic: row.topic, sender: senderOf(row), content: row.content })),
    };
  }

  /** Deletes contents past retention, at most `limit` rows; returns how many. Observations stay. */
  pruneContents(limit: number): Promise<number> {
    return this.sql.$executeRawUnsafe(
      `DELETE FROM agent_message_contents WHERE ctid IN (SELECT ctid FROM agent_message_contents WHERE retain_until <= now() LIMIT $1::int)`,
      limit,
    );
  }

  /** Thread activity and delivery health of a workspace, without content. */
  async health(workspaceId: string): Promise<AgentMessageHealth> {
    const threads = await this.sql.$queryRawUnsafe<
      { thread: string; observations: string; senders: string; gaps: string; regressions: string; deliveries: string; last_observed_at: Date }[]
    >(
      `SELECT thread, count(*) AS observations, count(DISTINCT sender_key) AS senders,
         count(*) FILTER (WHERE sequence = 'gap') AS gaps, count(*) FILTER (WHERE sequence IN ('regression', 'repeat')) AS regressions,
         sum(deliveries) AS deliveries, max(observed_at) AS last_observed_at
       FROM agent_message_observations WHERE workspace_id = $1::uuid GROUP BY thread ORDER BY max(seq) DESC LIMIT 200`,
      workspaceId,
    );
    const quarantine = await this.sql.$queryRawUnsafe<{ reason: QuarantineReason; count: string }[]>(
      `SELECT reason, sum(deliveries) AS count FROM agent_message_quarantine WHERE workspace_id = $1::uuid GROUP BY reason ORDER BY reason`,
      workspaceId,
    );
    const sum = (pick: (row: (typeof threads)[number]) => string) => threads.reduce((total, row) => total + Number(pick(row)), 0);
    return {
      threads: threads.map((row) => ({
        thread: row.thread,
        observations: Number(row.observations),
        senders: Number(row.senders),
        gaps: Number(row.gaps),
        regressions: Number(row.regressions),
        lastObservedAt: row.last_observed_at.toISOString(),
      })),
      quarantine: quarantine.map((row) => ({ reason: row.reason, count: Number(row.count) })),
      totals: {
        observations: sum((row) => row.observations),
        deliveries: sum((row) => row.deliveries),
        gaps: sum((row) => row.gaps),
        regressions: sum((row) => row.regressions),
        quarantined: quarantine.reduce((total, row) => total + Number(row.count), 0),
        lastSeq: await this.lastSeq(workspaceId),
      },
    };
  }
}
