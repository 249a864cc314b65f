import type { Redis } from './connection';
import type { Logger } from '@switchyard/logging';
import { NonRetriableError } from '@switchyard/contracts';
import { duplicateRedis } from './connection';
import { once } from './once';
import { entryMessage, type DeadLetterStore } from './dead-letters';
import { MESSAGE_FIELD } from './stream-producer';

/** One decoded entry handed to a handler. */
export interface StreamEntry<T> {
  /** The Redis entry id (`1700000000000-0`). */
  id: string;
  message: T;
}

/**
 * What a handler may resolve with: the entries of the batch it refused for
 * good (they can never succeed, e.g. data PostgreSQL will not store). They go
 * to the dead letters at once; the rest of the batch is acked.
 */
export interface HandleOutcome {
  refused: Array<{ id: string; error: unknown }>;
}

/** Options of StreamConsumer. */
export interface StreamConsumerOptions<T> {
  /** Connection for acks, claims and dead letters; the blocking read uses a duplicate of it. */
  redis: Redis;
  /** Full key of the stream. */
  stream: string;
  group: string;
  /** This process's consumer name; unique per live process. */
  consumer: string;
  /**
   * Where entries that fail for good are recorded (durably: PostgreSQL),
   * before they are acked here.
   */
  deadLetters: DeadLetterStore;
  /** Redis hash of the last error of entries still being retried (see `lastErrorsKey`). */
  lastErrorsKey: string;
  /** Parses the JSON of an entry; throwing sends the entry to the dead letters at once. */
  decode: (raw: unknown) => T;
  /**
   * Applies a batch. Resolving acks every entry, so resolve only once the
   * effect is durable; entries it resolves as `refused` are dead-lettered at
   * once instead. Throwing retries the entries one by one, so that one
   * poison entry cannot hold back the others. Must be idempotent: an entry
   * can be delivered again after a crash.
   */
  handle: (entries: StreamEntry<T>[]) => Promise<void | HandleOutcome>;
  /**
   * Called with a decoded entry once its dead letter is recorded and before
   * it is acked (e.g. the event-log frees the fact's idempotency key).
   * Throwing leaves the entry pending: it is dead-lettered again later (the
   * letter is recorded once) and this is called again, so make it idempotent.
   */
  onDeadLettered?: (entry: StreamEntry<T>) => Promise<void>;
  log: Logger;
  /** Entries per read. @defaultValue 100 */
  batchSize?: number;
  /** How long one blocking read waits. @defaultValue 1000 */
  blockMs?: number;
  /** An entry pending this long is taken over from its consumer (set it above the slowest handler). @defaultValue 30000 */
  claimIdleMs?: number;
  /** After this many deliveries without ack, an entry goes to the dead letters. @defaultValue 5 */
  maxDeliveries?: number;
  /**
   * After a live batch smaller than `batchSize`, wait this long before the
   * next read, so that it collects what arrived meanwhile: fewer, larger
   * batches (each a wake-up of this process, of Redis and of the handler's
   * stores) for at most this much added latency. @defaultValue 0
   */
  lingerMs?: number;
  /** Where a group created by this consumer starts. @defaultValue '0' (the whole stream) */
  startId?: string;
  /**
   * Called after the group had vanished (Redis restarted empty or was
   * flushed) and was created again: entries may have been lost, so a
   * consumer with a system of record reconciles from it here.
   */
  onGroupLost?: () => Promise<void>;
}

type RawEntry = [id: string, fields: string[]];

/**
 * The one stream consumer of Switchyard: a consumer group read with
 * XREADGROUP BLOCK/COUNT, ack after the handler's effect is durable, XAUTOCLAIM
 * of entries left idle by dead consumers, dead letters recorded in a durable
 * store (then acked) after `maxDeliveries` or when refused, and a graceful
 * `close()`.
 */
export class StreamConsumer<T> {
  private readonly blocking: Redis;
  private readonly batchSize: number;
  private readonly blockMs: number;
  private readonly claimIdleMs: number;
  private readonly maxDeliveries: number;
  private readonly lingerMs: number;
  private closing = false;
  private loop: Promise<void> | undefined;
  private nextClaimAt = 0;
  /** Ids of a handled live batch whose XACK goes out with the next read (one round trip for both). */
  private unacked: string[] = [];
  /** Ends a linger in progress (close() calls it). */
  private endLinger: (() => void) | undefined;

  constructor(private readonly options: StreamConsumerOptions<T>) {
    this.batchSize = options.batchSize ?? 100;
    this.blockMs = options.blockMs ?? 1000;
    this.claimIdleMs = options.claimIdleMs ?? 30_000;
    this.maxDeliveries = options.maxDeliveries ?? 5;
    this.lingerMs = options.lingerMs ?? 0;
    if (this.maxDeliveries < 1) throw new Error('maxDeliveries must be at least 1');
    if (this.blockMs >= this.claimIdleMs) throw new Error('blockMs must be below claimIdleMs');
    // A lingering batch's ack waits for the next read: it must not look abandoned meanwhile.
    if (this.lingerMs * 2 >= this.claimIdleMs) throw new Error('lingerMs must be below half of claimIdleMs');
    // A dedicated connection: a blocking read holds its connection for up to blockMs.
    this.blocking = duplicateRedis(options.redis, { maxRetriesPerRequest: null, connectionName: `${options.group}:read` });
  }

  /** Creates the group if needed, then consumes in the background until close(). */
  async start(): Promise<void> {
    await this.ensureGroup();
    this.loop = this.run();
  }

  /**
   * Creates the group at `startId` if it does not exist (start() does it too).
   * Called early by a consumer that must fix the group's place before other
   * work: the matcher creates it before it reconciles from PostgreSQL, so
   * that no fact falls between what the reconcile read and where the group starts.
   */
  async ensureGroup(): Promise<void> {
    const { redis, stream, group } = this.options;
    try {
      await redis.xgroup('CREATE', stream, group, this.options.startId ?? '0', 'MKSTREAM');
    } catch (error) {
      if (!String(error).includes('BUSYGROUP')) throw error;
    }
  }

  /** Stops reading, lets the batch in hand finish and be acked, then disconnects. */
  readonly close = once(async () => {
    this.closing = true;
    this.endLinger?.();
    // Disconnect first to interrupt a blocking XREADGROUP; acks use the other connection.
    this.blocking.disconnect();
    await this.loop;
    // The last batch's ack had no next read to ride with.
    const acks = this.takeUnacked();
    if (acks.length > 0) await this.options.redis.xack(this.options.stream, this.options.group, ...acks);
  });

  private async run(): Promise<void> {
    let failures = 0;
    let ownPendingDone = false;
    while (!this.closing) {
      try {
        if (!ownPendingDone) ownPendingDone = await this.processOwnPending();
        if (Date.now() >= this.nextClaimAt) {
          await this.reclaimIdle();
          this.nextClaimAt = Date.now() + Math.max(100, Math.floor(this.claimIdleMs / 2));
        }
        const entries = await this.read('>');
        if (entries.length > 0) await this.process(entries);
        failures = 0;
        if (entries.length > 0 && entries.length < this.batchSize && this.lingerMs > 0) await this.linger();
      } catch (error) {
        if (this.closing) break;
        if (String(error).includes('NOGROUP')) {
          this.options.log.warn({ stream: this.options.stream, group: this.options.group }, 'consumer group vanished; creating it again');
          await this.recoverGroup();
          continue;
        }
        failures += 1;
        this.options.log.error({ err: error, stream: this.options.stream }, 'stream consumer loop failed');
        await sleep(Math.min(100 * 2 ** failures, 5000));
      }
    }
  }

  /** Waits lingerMs, or less if close() comes first. */
  private linger(): Promise<void> {
    if (this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.endLinger = undefined;
        resolve();
      }, this.lingerMs);
      this.endLinger = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async recoverGroup(): Promise<void> {
    try {
      await this.ensureGroup();
      await this.options.onGroupLost?.();
    } catch (error) {
      this.options.log.error({ err: error }, 'recovering the consumer group failed; retrying');
      await sleep(500);
    }
  }

  /** Entries delivered to this consumer name before a restart; true when none are left. */
  private async processOwnPending(): Promise<boolean> {
    const entries = await this.readRaw('0', false);
    if (entries.length === 0) return true;
    await this.process(await this.withDeliveries(entries), true);
    return entries.length < this.batchSize;
  }

  private async read(id: string): Promise<RawEntry[]> {
    return this.readRaw(id, true);
  }

  private async readRaw(id: string, block: boolean): Promise<RawEntry[]> {
    const { stream, group, consumer } = this.options;
    const args: (string | number)[] = ['GROUP', group, consumer, 'COUNT', this.batchSize];
    if (block) args.push('BLOCK', this.blockMs);
    args.push('STREAMS', stream, id);
    const acks = this.takeUnacked();
    if (acks.length === 0) {
      const reply = (await this.blocking.call('XREADGROUP', ...args)) as [string, RawEntry[]][] | null;
      return reply?.[0]?.[1] ?? [];
    }
    // The previous batch's ack and this read in one write: Redis runs them in order.
    const results = (await this.blocking.pipeline().xack(stream, group, ...acks).call('XREADGROUP', ...args).exec()) ?? [];
    const ackError = results[0]?.[0];
    const [readError, reply] = (results[1] ?? [new Error('no reply to XREADGROUP'), null]) as [Error | null, [string, RawEntry[]][] | null];
    // Unacked entries stay pending and are claimed again after claimIdleMs: handlers are idempotent.
    if (ackError) this.options.log.warn({ err: ackError, stream, entries: acks.length }, 'ack failed; the entries will be delivered again');
    if (readError) throw readError;
    return reply?.[0]?.[1] ?? [];
  }

  private takeUnacked(): string[] {
    const acks = this.unacked;
    this.unacked = [];
    return acks;
  }

  /** Takes over entries idle longer than claimIdleMs, from any consumer (this one included). */
  private async reclaimIdle(): Promise<void> {
    const { redis, stream, group, consumer, log } = this.options;
    let cursor = '0-0';
    do {
      const [next, claimed, deleted] = (await redis.call(
        'XAUTOCLAIM', stream, group, consumer, this.claimIdleMs, cursor, 'COUNT', this.batchSize,
      )) as [string, RawEntry[], string[]?];
      cursor = next;
      if (deleted && deleted.length > 0) {
        log.warn({ stream, ids: deleted }, 'pending entries were trimmed before they were acknowledged');
      }
      const live = claimed.filter((entry) => entry && entry[1]);
      if (live.length > 0) await this.process(await this.withDeliveries(live), true);
    } while (cursor !== '0-0' && !this.closing);
  }

  /** Delivery counts of entries pending on this consumer, from XPENDING. */
  private async withDeliveries(entries: RawEntry[]): Promise<Array<RawEntry & { deliveries?: number }>> {
    const { redis, stream, group, consumer } = this.options;
    const first = entries[0]![0];
    const last = entries[entries.length - 1]![0];
    const rows = (await redis.xpending(stream, group, first, last, entries.length, consumer)) as [string, string, number, number][];
    const counts = new Map(rows.map(([id, , , count]) => [id, count]));
    return entries.map((entry) => Object.assign(entry, { deliveries: counts.get(entry[0]) ?? 1 }));
  }

  private async process(raw: Array<RawEntry & { deliveries?: number }>, redelivered = false): Promise<void> {
    const decoded: Array<DecodedEntry<T>> = [];
    for (const entry of raw) {
      const deliveries = entry.deliveries ?? 1;
      const result = this.decode(entry);
      if (!result.ok) {
        await this.deadLetter(entry, deliveries, result.error);
      } else if (deliveries > this.maxDeliveries) {
        await this.deadLetter(entry, deliveries, await this.lastError(entry[0]), { id: entry[0], message: result.message });
      } else {
        decoded.push({ id: entry[0], message: result.message, deliveries, raw: entry });
      }
    }
    if (decoded.length === 0) return;
    let outcome: void | HandleOutcome;
    try {
      outcome = await this.options.handle(decoded.map(({ id, message }) => ({ id, message })));
    } catch (error) {
      if (decoded.length === 1) return this.fail(decoded[0]!, error);
      // Retry one by one: the entries that succeed are acked, only the poison ones stay behind.
      for (const entry of decoded) {
        try {
          const own = await this.options.handle([{ id: entry.id, message: entry.message }]);
          await this.settle([entry], own, true, redelivered);
        } catch (entryError) {
          await this.fail(entry, entryError);
        }
      }
      return;
    }
    await this.settle(decoded, outcome, false, redelivered);
  }

  /**
   * After a handler resolved: its refused entries to the dead letters, the
   * others acked — at once when `now` or redelivered (which also clears their
   * errors), else with the next read.
   */
  private async settle(entries: Array<DecodedEntry<T>>, outcome: void | HandleOutcome, now: boolean, redelivered: boolean): Promise<void> {
    const refused = new Map((outcome?.refused ?? []).map(({ id, error }) => [id, error]));
    const done: string[] = [];
    for (const entry of entries) {
      if (refused.has(entry.id)) await this.deadLetter(entry.raw, entry.deliveries, refused.get(entry.id), entry);
      else done.push(entry.id);
    }
    if (done.length === 0) return;
    if (now || redelivered) await this.ack(done, redelivered);
    else this.unacked.push(...done);
  }

  private decode(entry: RawEntry): { ok: true; message: T } | { ok: false; error: unknown } {
    const fields = entry[1];
    const index = fields.indexOf(MESSAGE_FIELD);
    try {
      if (index < 0 || index % 2 !== 0) throw new NonRetriableError(`entry has no '${MESSAGE_FIELD}' field`);
      return { ok: true, message: this.options.decode(JSON.parse(fields[index + 1]!)) };
    } catch (error) {
      return { ok: false, error: error instanceof NonRetriableError ? error : new NonRetriableError(String(error), undefined, { cause: error }) };
    }
  }

  private async fail(entry: DecodedEntry<T>, error: unknown): Promise<void> {
    const { log, stream } = this.options;
    if (error instanceof NonRetriableError || entry.deliveries >= this.maxDeliveries) {
      await this.deadLetter(entry.raw, entry.deliveries, error, entry);
      return;
    }
    log.warn({ err: error, stream, entryId: entry.id, deliveries: entry.deliveries }, 'stream entry failed; it will be retried');
    // Kept in Redis so whichever consumer gives up on the entry can record why.
    await this.options.redis.hset(this.options.lastErrorsKey, entry.id, errorText(error));
  }

  private async lastError(id: string): Promise<string> {
    const recorded = await this.options.redis.hget(this.options.lastErrorsKey, id);
    return recorded ?? 'delivered repeatedly without acknowledgement (the consumer died or timed out)';
  }

  /**
   * Records the letter durably, lets the owner react (onDeadLettered), then
   * acks: a crash before the ack leaves the entry pending, and its second
   * letter is the same row.
   */
  private async deadLetter(entry: RawEntry, deliveries: number, error: unknown, decoded?: StreamEntry<T>): Promise<void> {
    const { redis, stream, group, consumer, deadLetters, log } = this.options;
    log.error({ err: error, stream, entryId: entry[0], deliveries }, 'stream entry dead-lettered');
    await deadLetters.record({ stream, group, consumer, entryId: entry[0], message: entryMessage(entry[1]), deliveries, error: errorText(error) });
    if (decoded) await this.options.onDeadLettered?.({ id: decoded.id, message: decoded.message });
    await redis.multi().xack(stream, group, entry[0]).hdel(this.options.lastErrorsKey, entry[0]).exec();
  }

  private async ack(ids: string[], clearErrors: boolean): Promise<void> {
    const { redis, stream, group } = this.options;
    await redis.xack(stream, group, ...ids);
    if (clearErrors) await redis.hdel(this.options.lastErrorsKey, ...ids);
  }
}

/** A decoded entry with what settling it needs. */
interface DecodedEntry<T> extends StreamEntry<T> {
  deliveries: number;
  raw: RawEntry;
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return JSON.stringify(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
