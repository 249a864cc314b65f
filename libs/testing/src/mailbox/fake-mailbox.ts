import { MailboxEnvelopeSchema, type MailboxEnvelope } from '@switchyard/contracts';
import type { ConformingMailbox, ConformingMailboxDrain, MailboxPostOutcome } from './mailbox-types';

/** One entry of a fake mailbox: its id (a number, in post order) and the text the real stream's field would hold. */
interface FakeMailboxEntry {
  id: number;
  raw: string;
}

/** Most entries one drain or conditional close takes, as SessionMailbox reads them. */
const READ_COUNT = 100;

/**
 * Why this exists: the runner's unit tests need a session mailbox with the
 * real one's rules (SessionMailbox in `@switchyard/redis`) without Redis.
 * Both sides are here: `post` is the gateway's, the rest is the runner's port.
 * Entries are kept as JSON text and parsed on the way out, as the real one
 * parses stream fields, so an entry that does not parse counts as invalid.
 * Each call does its work synchronously, as the real one does in one Lua
 * script: a post lands either before a close (and the close's drain returns
 * it) or after it (and is refused). Passes the mailbox conformance suite, as
 * the Redis adapter does. Its sessions are never resident (teammates' mailboxes
 * are tested on Redis).
 */
export class FakeMailbox implements ConformingMailbox {
  private readonly streams = new Map<string, FakeMailboxEntry[]>();
  private readonly closed = new Set<string>();
  private nextId = 1;

  /** The gateway's side: appends the envelope unless its session's mailbox is closed. */
  async post(envelope: MailboxEnvelope): Promise<MailboxPostOutcome> {
    return this.postRaw(envelope.sessionId, JSON.stringify(envelope));
  }

  /** Appends any text as an entry (a corrupt or foreign entry, for tests of what a drain drops). */
  async postRaw(sessionId: string, raw: string): Promise<MailboxPostOutcome> {
    if (this.closed.has(sessionId)) return 'closed';
    this.stream(sessionId).push({ id: this.nextId++, raw });
    return 'delivered';
  }

  /** How many entries the session's mailbox holds (drained ones until they are removed). */
  size(sessionId: string): number {
    return this.streams.get(sessionId)?.length ?? 0;
  }

  /** True once the session's mailbox is closed. */
  isClosed(sessionId: string): boolean {
    return this.closed.has(sessionId);
  }

  async drain(sessionId: string, cursor: string | undefined, remove: readonly string[] = []): Promise<ConformingMailboxDrain> {
    await this.remove(sessionId, remove);
    return this.toDrain(sessionId, this.after(sessionId, cursor, READ_COUNT), cursor);
  }

  async closeIfDrained(sessionId: string, cursor: string | undefined, remove: readonly string[] = []): Promise<ConformingMailboxDrain | null> {
    await this.remove(sessionId, remove);
    const entries = this.after(sessionId, cursor, READ_COUNT);
    if (entries.length > 0) return this.toDrain(sessionId, entries, cursor);
    this.closed.add(sessionId);
    return null;
  }

  async closeNow(sessionId: string, cursor: string | undefined, options: { remove?: readonly string[] } = {}): Promise<ConformingMailboxDrain> {
    await this.remove(sessionId, options.remove ?? []);
    const entries = this.after(sessionId, cursor, Number.POSITIVE_INFINITY);
    this.closed.add(sessionId);
    return this.toDrain(sessionId, entries, cursor);
  }

  async remove(sessionId: string, ids: readonly string[]): Promise<void> {
    const gone = new Set(ids);
    const stream = this.streams.get(sessionId);
    if (stream && gone.size > 0) this.streams.set(sessionId, stream.filter((entry) => !gone.has(String(entry.id))));
  }

  async discard(sessionId: string, envelopeIds: readonly string[]): Promise<void> {
    const wanted = new Set(envelopeIds);
    this.streams.set(sessionId, this.stream(sessionId).filter((entry) => !wanted.has((safeJson(entry.raw) as { id?: string } | undefined)?.id ?? '')));
  }

  private stream(sessionId: string): FakeMailboxEntry[] {
    let stream = this.streams.get(sessionId);
    if (!stream) this.streams.set(sessionId, (stream = []));
    return stream;
  }

  private after(sessionId: string, cursor: string | undefined, count: number): FakeMailboxEntry[] {
    const from = cursor === undefined ? 0 : Number(cursor);
    return this.stream(sessionId)
      .filter((entry) => entry.id > from)
      .slice(0, count);
  }

  private toDrain(sessionId: string, entries: FakeMailboxEntry[], cursor: string | undefined): ConformingMailboxDrain {
    const envelopes: MailboxEnvelope[] = [];
    let invalid = 0;
    for (const entry of entries) {
      const parsed = MailboxEnvelopeSchema.safeParse(safeJson(entry.raw));
      if (parsed.success && parsed.data.sessionId === sessionId) envelopes.push(parsed.data);
      else invalid += 1;
    }
    return { envelopes, invalid, cursor: entries.length > 0 ? String(entries.at(-1)!.id) : cursor, ids: entries.map((entry) => String(entry.id)) };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
