import { MAILBOX_FIELD, mailboxStream, MailboxEnvelopeSchema, type MailboxEnvelope } from '@switchyard/contracts';
import type { Redis } from './connection';
import { toKey } from './keys';

/** Options of SessionMailbox. */
export interface SessionMailboxOptions {
  /**
   * Each mailbox stream is trimmed to about this many entries (`MAXLEN ~`), so
   * a session nobody drains cannot grow without bound. @defaultValue 1000
   */
  maxLen?: number;
  /**
   * How long a closed mailbox stays marked closed (and its emptied stream is
   * kept). Past it, the run ledger alone refuses posts to the ended session.
   * @defaultValue 86400 (a day)
   */
  closedTtlSeconds?: number;
}

/** What a post did: the envelope is in the mailbox, or the mailbox was closed (its run ended) and nothing was written. */
export type MailboxPostResult = 'delivered' | 'closed';

/** Entries read from a mailbox, oldest first. */
export interface MailboxRead {
  /** The entries that parsed as envelopes of this session. */
  envelopes: MailboxEnvelope[];
  /** Entries that did not parse (or name another session): dropped with the rest, counted. */
  invalid: number;
  /** Every entry id read (to delete them once recorded). */
  ids: string[];
  /** The id after which the next read starts; the given cursor when nothing was read. */
  cursor: string | undefined;
}

/**
 * What the close of a run that ends otherwise read: what the run never read,
 * and for a resident session whose unread entries stay for its next turn,
 * how (`waking`: open, the caller queues that turn; `idle`: the next post wakes it).
 */
export interface ForcedClose extends MailboxRead {
  kept?: 'waking' | 'idle';
}

/** Most entries one read takes; the rest wait for the next. */
const READ_COUNT = 100;

/**
 * Deletes entries the run has recorded (ARGV[3..]), then reads after the
 * cursor: a drain and the delete of the drain before it, in one step.
 * KEYS: [stream]; ARGV: start, count, ids to delete...
 */
const READ_SCRIPT = `
if #ARGV > 2 then redis.call('XDEL', KEYS[1], unpack(ARGV, 3)) end
return redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
`;

/**
 * Posts unless the mailbox is closed. KEYS: [stream, closed marker]; ARGV: maxLen, field, json.
 * Returns 1 when written, 0 when closed.
 */
const POST_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3])
return 1
`;

/**
 * The run's last drain and the close, as one step: entries after the cursor
 * are returned and the mailbox stays open (the run takes one more step);
 * with none, the mailbox is marked closed. With ARGV[4] = 'force' or 'idle'
 * it is the close of a run that ends otherwise: a session that is not
 * resident is closed whatever waits (returned, to be recorded as unread); a
 * resident one keeps what its turn never read — with 'force' its mailbox
 * stays open for the next turn (answer 2: the caller wakes it), with 'idle'
 * it is marked idle and the next post wakes it (answer 3). Entries the run
 * has recorded (ARGV[6..]) are deleted first.
 * KEYS: [stream, closed marker, resident marker, open set]; ARGV: start, count, ttlSeconds, mode, sessionId, ids to delete...
 */
const CLOSE_SCRIPT = `
if #ARGV > 5 then redis.call('XDEL', KEYS[1], unpack(ARGV, 6)) end
local entries = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
if #entries > 0 and ARGV[4] == 'drained' then return {0, entries} end
if redis.call('EXISTS', KEYS[3]) == 1 then
  if #entries > 0 and ARGV[4] == 'force' then
    local t = redis.call('TIME')
    redis.call('ZADD', KEYS[4], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[5])
    return {2, entries}
  end
  redis.call('SET', KEYS[2], '1')
  redis.call('PERSIST', KEYS[1])
  redis.call('ZREM', KEYS[4], ARGV[5])
  if #entries > 0 then return {3, entries} end
else
  redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return {1, entries}
`;

/**
 * A resident (teammate) session's post: always written; a closed mailbox
 * means its last turn ended, so this post reopens it and is the one wake. A
 * reopened mailbox joins the open set (scored by when), so that a wake its
 * poster never made is found by the runner's sweep.
 * KEYS: [stream, closed marker, open set]; ARGV: maxLen, field, json, sessionId. Returns 2 when it woke, 1 otherwise.
 */
const POST_RESIDENT_SCRIPT = `
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3])
redis.call('PERSIST', KEYS[1])
if redis.call('DEL', KEYS[2]) == 1 then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[4])
  return 2
end
return 1
`;

/**
 * POST_RESIDENT_SCRIPT once per envelope id: a repeat of the same envelope
 * writes nothing and answers what the first post did (kept `ARGV[4]` seconds),
 * so a poster that crashed between the post and its wake can post again and
 * still learn it woke the session.
 * KEYS: [stream, closed marker, posted marker, open set]; ARGV: maxLen, field, json, ttlSeconds, sessionId.
 */
const POST_RESIDENT_ONCE_SCRIPT = `
local seen = redis.call('GET', KEYS[3])
if seen then return tonumber(seen) end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3])
redis.call('PERSIST', KEYS[1])
local result = 1
if redis.call('DEL', KEYS[2]) == 1 then
  result = 2
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[4], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[5])
end
redis.call('SET', KEYS[3], result, 'EX', ARGV[4])
return result
`;

/** Members of the open set opened at least ARGV[1] ms ago (Redis's clock), oldest first, at most ARGV[2]. KEYS: [open set]. */
const OPEN_SINCE_SCRIPT = `
local t = redis.call('TIME')
local before = t[1] * 1000 + math.floor(t[2] / 1000) - tonumber(ARGV[1])
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', before, 'LIMIT', 0, ARGV[2])
`;

/** Re-scores members still in the open set to now (they were looked at). KEYS: [open set]; ARGV: members. */
const TOUCH_OPEN_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
for i = 1, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now, ARGV[i]) end
return #ARGV
`;

interface MailboxCommands {
  switchyardMailboxPostResidentOnce(...keysAndArgs: string[]): Promise<number>;
  switchyardMailboxPost(...keysAndArgs: string[]): Promise<number>;
  switchyardMailboxPostResident(...keysAndArgs: string[]): Promise<number>;
  switchyardMailboxClose(...keysAndArgs: string[]): Promise<[number, Array<[string, string[]]>]>;
  switchyardMailboxRead(...keysAndArgs: string[]): Promise<Array<[string, string[]]>>;
  switchyardMailboxOpenSince(...keysAndArgs: string[]): Promise<string[]>;
  switchyardMailboxTouchOpen(...keysAndArgs: string[]): Promise<number>;
}

/**
 * A session's mailbox — the Redis stream `mailbox:<sessionId>` (one field
 * `envelope`, JSON) and its closed marker `mailbox-closed:<sessionId>` — in
 * one place for both sides: the gateway posts, the session's run reads after
 * its cursor, deletes what its transcript holds (with its next read or
 * close), and closes the mailbox when it ends. Posting and closing are Lua
 * scripts on the same keys, so a message is either posted before the close (and read by the run's last drain) or
 * refused — never accepted after the run's last read. A resident (teammate)
 * session's mailbox outlives its turns (decision 0035): closed means idle, a
 * post reopens it and is the one wake, and what a turn leaves unread stays.
 */
export class SessionMailbox {
  private readonly maxLen: number;
  private readonly closedTtlSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    options: SessionMailboxOptions = {},
  ) {
    this.maxLen = options.maxLen ?? 1000;
    this.closedTtlSeconds = options.closedTtlSeconds ?? 86_400;
    redis.defineCommand('switchyardMailboxPost', { lua: POST_SCRIPT, numberOfKeys: 2 });
    redis.defineCommand('switchyardMailboxClose', { lua: CLOSE_SCRIPT, numberOfKeys: 4 });
    redis.defineCommand('switchyardMailboxRead', { lua: READ_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('switchyardMailboxPostResident', { lua: POST_RESIDENT_SCRIPT, numberOfKeys: 3 });
    redis.defineCommand('switchyardMailboxPostResidentOnce', { lua: POST_RESIDENT_ONCE_SCRIPT, numberOfKeys: 4 });
    redis.defineCommand('switchyardMailboxOpenSince', { lua: OPEN_SINCE_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('switchyardMailboxTouchOpen', { lua: TOUCH_OPEN_SCRIPT, numberOfKeys: 1 });
  }

  /** Appends the envelope to its session's mailbox unless the mailbox is closed; rejects when Redis does not answer. */
  async post(envelope: MailboxEnvelope): Promise<MailboxPostResult> {
    const [stream, closed] = this.keys(envelope.sessionId);
    const written = await this.commands().switchyardMailboxPost(
      stream,
      closed,
      String(this.maxLen),
      MAILBOX_FIELD,
      JSON.stringify(envelope),
    );
    return written === 1 ? 'delivered' : 'closed';
  }

  /**
   * Makes the session resident (a teammate's: decision 0035) and idle: its
   * mailbox outlives each turn (a turn's close marks it idle, with no expiry)
   * and `postResident` is how messages reach it.
   */
  async makeResident(sessionId: string): Promise<void> {
    const [, closed, resident] = this.keys(sessionId);
    await this.redis.multi().set(resident, '1').set(closed, '1').exec();
  }

  /** A stopped teammate's session: no longer resident, closed, and expiring like any ended run's. */
  async retire(sessionId: string): Promise<void> {
    const [stream, closed, resident] = this.keys(sessionId);
    const ttl = this.closedTtlSeconds;
    await this.redis.multi().del(resident).set(closed, '1', 'EX', ttl).expire(stream, ttl).zrem(this.openSet, sessionId).exec();
  }

  /**
   * Posts to a resident session: always written. `woke` when its mailbox was
   * closed (no turn running or queued to read it): the caller must queue its
   * next turn. `delivered` when a turn will read it (the running turn's next
   * drain or its last, or the queued turn).
   */
  async postResident(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'> {
    const [stream, closed] = this.keys(envelope.sessionId);
    const result = await this.commands().switchyardMailboxPostResident(stream, closed, this.openSet, String(this.maxLen), MAILBOX_FIELD, JSON.stringify(envelope), envelope.sessionId);
    return result === 2 ? 'woke' : 'delivered';
  }

  /**
   * `postResident` at most once per envelope id (for a day, `closedTtlSeconds`):
   * posting the same envelope again writes nothing and answers what the first
   * post answered. For a poster that may repeat itself (an at-least-once consumer).
   */
  async postResidentOnce(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'> {
    const [stream, closed] = this.keys(envelope.sessionId);
    const posted = toKey(this.prefix, 'mailbox-posted', envelope.sessionId, envelope.id);
    const json = JSON.stringify(envelope);
    const result = await this.commands().switchyardMailboxPostResidentOnce(stream, closed, posted, this.openSet, String(this.maxLen), MAILBOX_FIELD, json, String(this.closedTtlSeconds), envelope.sessionId);
    return result === 2 ? 'woke' : 'delivered';
  }

  /** One more message sent by the run (send_message's per-run cap): the count so far; the counter outlives any run (a day). */
  async countSent(runId: string): Promise<number> {
    const key = toKey(this.prefix, 'messages-sent', runId);
    const [[, count] = [null, 0]] = (await this.redis.multi().incr(key).expire(key, 86_400).exec()) ?? [];
    return Number(count);
  }

  /**
   * Takes one of the run's delegations (`budget.maxChildren`, decision 0059): true
   * when the run has delegated fewer than `max` times, counted atomically so that
   * concurrent calls of one run cannot both take the last one; a refused or
   * failed take is given back (`releaseDelegation`). Kept a day, like countSent.
   */
  async takeDelegation(runId: string, max: number): Promise<boolean> {
    const key = toKey(this.prefix, 'delegations', runId);
    const [[, count] = [null, 0]] = (await this.redis.multi().incr(key).expire(key, 86_400).exec()) ?? [];
    if (Number(count) <= max) return true;
    await this.redis.decr(key);
    return false;
  }

  /** Gives back a delegation taken for a child that was not started. */
  async releaseDelegation(runId: string): Promise<void> {
    await this.redis.decr(toKey(this.prefix, 'delegations', runId));
  }

  /**
   * Entries after `cursor` (from the start when undefined), oldest first, at
   * most 100 — after deleting `remove` (entries the run has recorded).
   */
  async read(sessionId: string, cursor: string | undefined, remove: readonly string[] = []): Promise<MailboxRead> {
    const [stream] = this.keys(sessionId);
    const entries = await this.commands().switchyardMailboxRead(stream, start(cursor), String(READ_COUNT), ...remove);
    return toRead(sessionId, entries, cursor);
  }

  /** Deletes entries by id (once the run's transcript holds them). */
  async remove(sessionId: string, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.xdel(this.keys(sessionId)[0], ...ids);
  }

  /**
   * The run's last drain: null when nothing arrived after `cursor` and the
   * mailbox is closed now; otherwise what arrived, the mailbox still open.
   * Deletes `remove` (entries the run has recorded) first.
   */
  async closeIfDrained(sessionId: string, cursor: string | undefined, remove: readonly string[] = []): Promise<MailboxRead | null> {
    const [answer, entries] = await this.close(sessionId, cursor, 'drained', remove);
    return answer === 0 ? toRead(sessionId, entries, cursor) : null;
  }

  /**
   * The close of a run that ends without its last drain (failed, cancelled,
   * lost): returns what it never read (after `cursor`). A session that is not
   * resident is closed whatever waits. A resident one keeps what waits for
   * its next turn (`kept`): `waking` — the mailbox stays open and the caller
   * must queue that turn; with `followUp: false` (the turn took no step, so
   * another would end the same way) `idle` — the next post wakes it.
   * Deletes `remove` (entries the run has recorded) first.
   */
  async closeNow(sessionId: string, cursor: string | undefined, options: { followUp?: boolean; remove?: readonly string[] } = {}): Promise<ForcedClose> {
    const [answer, entries] = await this.close(sessionId, cursor, options.followUp === false ? 'idle' : 'force', options.remove ?? []);
    const read = toRead(sessionId, entries, cursor);
    return answer === 2 ? { ...read, kept: 'waking' } : answer === 3 ? { ...read, kept: 'idle' } : read;
  }

  /** Deletes the entries holding these envelopes (a lost run recorded them: nobody reads them again). */
  async discard(sessionId: string, envelopeIds: readonly string[]): Promise<void> {
    if (envelopeIds.length === 0) return;
    const wanted = new Set(envelopeIds);
    const [stream] = this.keys(sessionId);
    for (let from = '-'; ; ) {
      const entries = await this.redis.xrange(stream, from, '+', 'COUNT', READ_COUNT);
      await this.remove(sessionId, entries.filter(([, fields]) => wanted.has(envelopeIdOf(fields) ?? '')).map(([id]) => id));
      if (entries.length < READ_COUNT) return;
      from = `(${entries.at(-1)![0]}`;
    }
  }

  /**
   * Resident sessions whose mailbox was opened (by a post that woke it, or a
   * turn that left messages for the next) at least `olderThanMs` ago and is
   * still open: each should have a turn queued or running. Oldest first.
   */
  async openSince(olderThanMs: number, count = 100): Promise<string[]> {
    return this.commands().switchyardMailboxOpenSince(this.openSet, String(olderThanMs), String(count));
  }

  /**
   * Closed and not in the open set: no turn is owed to this mailbox, and the
   * next post is the one that wakes it. With no turn of the session queued or
   * running, nothing more happens until someone posts — the signal a test
   * waits for before it counts turns.
   */
  async isIdle(sessionId: string): Promise<boolean> {
    const [, closed] = this.keys(sessionId);
    const [[, exists], [, opened]] = (await this.redis.multi().exists(closed).zscore(this.openSet, sessionId).exec()) as [[unknown, number], [unknown, string | null]];
    return exists === 1 && opened === null;
  }

  /** Marks open mailboxes as looked at now (a turn holds them), so that the oldest others come first next time. */
  async touchOpen(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length > 0) await this.commands().switchyardMailboxTouchOpen(this.openSet, ...sessionIds);
  }

  /** Drops sessions from the open set (their teammate is stopped or gone). */
  async forgetOpen(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length > 0) await this.redis.zrem(this.openSet, ...sessionIds);
  }

  private async close(sessionId: string, cursor: string | undefined, mode: 'drained' | 'force' | 'idle', remove: readonly string[]): Promise<[number, Array<[string, string[]]>]> {
    // A forced close returns everything left (up to the trim bound): it is the last read there is.
    const count = mode === 'drained' ? READ_COUNT : this.maxLen * 2;
    return this.commands().switchyardMailboxClose(...this.keys(sessionId), this.openSet, start(cursor), String(count), String(this.closedTtlSeconds), mode, sessionId, ...remove);
  }

  /** The sorted set of open resident mailboxes (session id → when opened, ms). */
  private get openSet(): string {
    return toKey(this.prefix, 'mailbox-open');
  }

  /** [stream, closed marker, resident marker]. */
  private keys(sessionId: string): [string, string, string] {
    return [toKey(this.prefix, ...mailboxStream(sessionId)), toKey(this.prefix, 'mailbox-closed', sessionId), toKey(this.prefix, 'mailbox-resident', sessionId)];
  }

  private commands(): MailboxCommands {
    return this.redis as unknown as MailboxCommands;
  }
}

/** XRANGE's start: exclusive after the cursor, or the stream's beginning. */
function start(cursor: string | undefined): string {
  return cursor === undefined ? '-' : `(${cursor}`;
}

function toRead(sessionId: string, entries: Array<[string, string[]]>, cursor: string | undefined): MailboxRead {
  const envelopes: MailboxEnvelope[] = [];
  let invalid = 0;
  for (const [, fields] of entries) {
    const raw = fieldValue(fields, MAILBOX_FIELD);
    const parsed = raw === undefined ? undefined : MailboxEnvelopeSchema.safeParse(safeJson(raw));
    if (parsed?.success && parsed.data.sessionId === sessionId) envelopes.push(parsed.data);
    else invalid += 1;
  }
  return { envelopes, invalid, ids: entries.map(([id]) => id), cursor: entries.at(-1)?.[0] ?? cursor };
}

/** The envelope id an entry holds, if it parses that far. */
function envelopeIdOf(fields: string[]): string | undefined {
  const raw = fieldValue(fields, MAILBOX_FIELD);
  const parsed = raw === undefined ? undefined : (safeJson(raw) as { id?: unknown } | undefined);
  return typeof parsed?.id === 'string' ? parsed.id : undefined;
}

function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
