import { MAILBOX_FIELD, mailboxStream, MailboxEnvelopeSchema, type MailboxEnvelope } from '@switchyard/contracts';
import type { Redis } from 'ioredis';
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

/** Most entries one read takes; the rest wait for the next. */
const READ_COUNT = 100;

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
 * with none, the mailbox is marked closed. With ARGV[4] = '1' it closes
 * whatever it finds and returns that (a run that ends otherwise).
 * KEYS: [stream, closed marker]; ARGV: start ('-' or '(<id>'), count, ttlSeconds, force.
 */
const CLOSE_SCRIPT = `
local entries = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
if #entries > 0 and ARGV[4] ~= '1' then return {0, entries} end
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('SET', KEYS[2], '1')
  redis.call('PERSIST', KEYS[1])
else
  redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return {1, entries}
`;

/**
 * A resident (teammate) session's post: always written; a closed mailbox
 * means its last turn ended, so this post reopens it and is the one wake.
 * KEYS: [stream, closed marker]; ARGV: maxLen, field, json. Returns 2 when it woke, 1 otherwise.
 */
const POST_RESIDENT_SCRIPT = `
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3])
redis.call('PERSIST', KEYS[1])
if redis.call('DEL', KEYS[2]) == 1 then return 2 end
return 1
`;

/**
 * POST_RESIDENT_SCRIPT once per envelope id: a repeat of the same envelope
 * writes nothing and answers what the first post did (kept `ARGV[4]` seconds),
 * so a poster that crashed between the post and its wake can post again and
 * still learn it woke the session.
 * KEYS: [stream, closed marker, posted marker]; ARGV: maxLen, field, json, ttlSeconds.
 */
const POST_RESIDENT_ONCE_SCRIPT = `
local seen = redis.call('GET', KEYS[3])
if seen then return tonumber(seen) end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3])
redis.call('PERSIST', KEYS[1])
local result = 1
if redis.call('DEL', KEYS[2]) == 1 then result = 2 end
redis.call('SET', KEYS[3], result, 'EX', ARGV[4])
return result
`;

interface MailboxCommands {
  switchyardMailboxPostResidentOnce(...keysAndArgs: string[]): Promise<number>;
  switchyardMailboxPost(...keysAndArgs: string[]): Promise<number>;
  switchyardMailboxPostResident(...keysAndArgs: string[]): Promise<number>;
  switchyardMailboxClose(...keysAndArgs: string[]): Promise<[number, Array<[string, string[]]>]>;
}

/**
 * A session's mailbox — the Redis stream `mailbox:<sessionId>` (one field
 * `envelope`, JSON) and its closed marker `mailbox-closed:<sessionId>` — in
 * one place for both sides: the gateway posts, the session's run reads after
 * its cursor, deletes what its transcript holds, and closes the mailbox when
 * it ends. Posting and closing are Lua scripts on the same keys, so a message
 * is either posted before the close (and read by the run's last drain) or
 * refused — never accepted after the run's last read.
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
    redis.defineCommand('switchyardMailboxClose', { lua: CLOSE_SCRIPT, numberOfKeys: 3 });
    redis.defineCommand('switchyardMailboxPostResident', { lua: POST_RESIDENT_SCRIPT, numberOfKeys: 2 });
    redis.defineCommand('switchyardMailboxPostResidentOnce', { lua: POST_RESIDENT_ONCE_SCRIPT, numberOfKeys: 3 });
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
    await this.redis.multi().del(resident).set(closed, '1', 'EX', ttl).expire(stream, ttl).exec();
  }

  /**
   * Posts to a resident session: always written. `woke` when its mailbox was
   * closed (no turn running or queued to read it): the caller must queue its
   * next turn. `delivered` when a turn will read it (the running turn's next
   * drain or its last, or the queued turn).
   */
  async postResident(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'> {
    const [stream, closed] = this.keys(envelope.sessionId);
    const result = await this.commands().switchyardMailboxPostResident(stream, closed, String(this.maxLen), MAILBOX_FIELD, JSON.stringify(envelope));
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
    const result = await this.commands().switchyardMailboxPostResidentOnce(stream, closed, posted, String(this.maxLen), MAILBOX_FIELD, json, String(this.closedTtlSeconds));
    return result === 2 ? 'woke' : 'delivered';
  }

  /** One more message sent by the run (send_message's per-run cap): the count so far; the counter outlives any run (a day). */
  async countSent(runId: string): Promise<number> {
    const key = toKey(this.prefix, 'messages-sent', runId);
    const [[, count] = [null, 0]] = (await this.redis.multi().incr(key).expire(key, 86_400).exec()) ?? [];
    return Number(count);
  }

  /** Entries after `cursor` (from the start when undefined), oldest first, at most 100. */
  async read(sessionId: string, cursor: string | undefined): Promise<MailboxRead> {
    const [stream] = this.keys(sessionId);
    const entries = await this.redis.xrange(stream, start(cursor), '+', 'COUNT', READ_COUNT);
    return toRead(sessionId, entries, cursor);
  }

  /** Deletes entries by id (once the run's transcript holds them). */
  async remove(sessionId: string, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.xdel(this.keys(sessionId)[0], ...ids);
  }

  /**
   * The run's last drain: null when nothing arrived after `cursor` and the
   * mailbox is closed now; otherwise what arrived, the mailbox still open.
   */
  async closeIfDrained(sessionId: string, cursor: string | undefined): Promise<MailboxRead | null> {
    const [closed, entries] = await this.close(sessionId, cursor, false);
    return closed ? null : toRead(sessionId, entries, cursor);
  }

  /** Closes the mailbox whatever waits in it, and returns what was never read (after `cursor`). */
  async closeNow(sessionId: string, cursor: string | undefined): Promise<MailboxRead> {
    const [, entries] = await this.close(sessionId, cursor, true);
    return toRead(sessionId, entries, cursor);
  }

  private async close(sessionId: string, cursor: string | undefined, force: boolean): Promise<[boolean, Array<[string, string[]]>]> {
    // A forced close returns everything left (up to the trim bound): it is the last read there is.
    const count = force ? this.maxLen * 2 : READ_COUNT;
    const [closed, entries] = await this.commands().switchyardMailboxClose(
      ...this.keys(sessionId),
      start(cursor),
      String(count),
      String(this.closedTtlSeconds),
      force ? '1' : '0',
    );
    return [closed === 1, entries];
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
