import { randomUUID } from 'node:crypto';
import type { MailboxEnvelope } from '@switchyard/contracts';
import type { ConformingMailbox, ConformingMailboxDrain, MailboxPostOutcome } from './mailbox-types';

/** What the conformance suite needs of an adapter under test. */
export interface MailboxHarness {
  /** The runner's port under test. */
  mailbox: ConformingMailbox;
  /** The gateway's side: posts an envelope to its session's mailbox. */
  post(envelope: MailboxEnvelope): Promise<MailboxPostOutcome>;
  /** Writes any text as an entry, as a corrupt or foreign writer would. */
  postRaw(sessionId: string, raw: string): Promise<MailboxPostOutcome>;
  /** How many entries the session's mailbox holds (drained ones until removed). */
  size(sessionId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Why this exists: the loop's tests only mean something if the fake mailbox
 * keeps the real one's rules. This is the one suite both pass (the fake in
 * libs/testing, the Redis adapter in services/runner): drains are in post
 * order after a cursor; drained entries stay until removed (by id, or with a
 * later read), so a runner that dies before recording them finds them
 * again; the conditional close returns late posts and stays open, or closes
 * and refuses every later post, atomically with the posts racing it;
 * repeated closes change nothing.
 */
export function describeMailboxConformance(name: string, setup: () => Promise<MailboxHarness>): void {
  describe(`mailbox conformance: ${name}`, () => {
    let h: MailboxHarness;
    let sessionId: string;
    beforeAll(async () => {
      h = await setup();
    });
    afterAll(async () => {
      await h?.close();
    });
    beforeEach(() => {
      sessionId = randomUUID();
    });

    const envelope = (content: string, session = sessionId): MailboxEnvelope => ({
      schemaVersion: 1,
      id: randomUUID(),
      sessionId: session,
      from: { type: 'user', userId: '00000000-0000-7000-8000-000000000001' },
      content,
      sentAt: new Date().toISOString(),
    });
    const postAll = async (...contents: string[]) => {
      for (const content of contents) expect(await h.post(envelope(content))).toBe('delivered');
    };
    const contents = (drain: ConformingMailboxDrain | null) => drain?.envelopes.map((e) => e.content);

    it('a drain returns the posts after its cursor, oldest first; with nothing new it keeps the cursor', async () => {
      const empty = await h.mailbox.drain(sessionId, undefined);
      expect(empty).toMatchObject({ envelopes: [], invalid: 0, cursor: undefined });
      await postAll('a', 'b', 'c');
      const first = await h.mailbox.drain(sessionId, undefined);
      expect(contents(first)).toEqual(['a', 'b', 'c']);
      expect(first.cursor).toEqual(expect.any(String));
      const none = await h.mailbox.drain(sessionId, first.cursor);
      expect(none).toMatchObject({ envelopes: [], invalid: 0, cursor: first.cursor });
      await postAll('d');
      expect(contents(await h.mailbox.drain(sessionId, first.cursor))).toEqual(['d']);
    });

    it('drained entries stay until removed; a remove deletes only the ids it names, and twice is harmless', async () => {
      await postAll('a', 'b');
      const first = await h.mailbox.drain(sessionId, undefined);
      // A runner that died before its transcript flush: the next one drains from the start and finds them again.
      expect(contents(await h.mailbox.drain(sessionId, undefined))).toEqual(['a', 'b']);
      await postAll('c');
      await h.mailbox.remove(sessionId, first.ids);
      await h.mailbox.remove(sessionId, first.ids);
      expect(await h.size(sessionId)).toBe(1);
      const rest = await h.mailbox.drain(sessionId, undefined);
      expect(contents(rest)).toEqual(['c']);
      await h.mailbox.remove(sessionId, (await h.mailbox.drain(sessionId, rest.cursor)).ids);
      expect(await h.size(sessionId)).toBe(1);
    });

    it('every read deletes the ids it is given before it reads, and a close does too', async () => {
      await postAll('a', 'b');
      const first = await h.mailbox.drain(sessionId, undefined);
      await postAll('c');
      const second = await h.mailbox.drain(sessionId, first.cursor, first.ids);
      expect(contents(second)).toEqual(['c']);
      expect(await h.size(sessionId)).toBe(1);
      // From the start: the removed entries are gone, the unremoved one is found again.
      expect(contents(await h.mailbox.drain(sessionId, undefined))).toEqual(['c']);
      expect(await h.mailbox.closeIfDrained(sessionId, second.cursor, second.ids)).toBeNull();
      expect(await h.size(sessionId)).toBe(0);
      const other = randomUUID();
      expect(await h.post(envelope('read', other))).toBe('delivered');
      const read = await h.mailbox.drain(other, undefined);
      expect(await h.post(envelope('unread', other))).toBe('delivered');
      expect(contents(await h.mailbox.closeNow(other, read.cursor, { remove: read.ids }))).toEqual(['unread']);
      expect(await h.size(other)).toBe(1);
    });

    it('a long backlog drains in pages after each cursor, in post order, each entry once', async () => {
      const posted = Array.from({ length: 230 }, (_, i) => `m${i}`);
      await postAll(...posted);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const drain = await h.mailbox.drain(sessionId, cursor);
        if (drain.envelopes.length === 0) break;
        seen.push(...contents(drain)!);
        cursor = drain.cursor;
      }
      expect(seen).toEqual(posted);
    });

    it('entries that do not parse or name another session are counted invalid, never returned, and removed with the rest', async () => {
      expect(await h.postRaw(sessionId, 'not json {')).toBe('delivered');
      expect(await h.postRaw(sessionId, JSON.stringify(envelope('foreign', randomUUID())))).toBe('delivered');
      expect(await h.postRaw(sessionId, JSON.stringify({ ...envelope('extra'), admin: true }))).toBe('delivered');
      await postAll('good');
      const drain = await h.mailbox.drain(sessionId, undefined);
      expect(contents(drain)).toEqual(['good']);
      expect(drain.invalid).toBe(3);
      await h.mailbox.remove(sessionId, drain.ids);
      expect(await h.size(sessionId)).toBe(0);
    });

    it('closeIfDrained returns what arrived after the cursor and leaves the mailbox open', async () => {
      await postAll('early');
      const read = await h.mailbox.drain(sessionId, undefined);
      await postAll('late');
      const late = await h.mailbox.closeIfDrained(sessionId, read.cursor);
      expect(contents(late)).toEqual(['late']);
      expect(late!.cursor).not.toBe(read.cursor);
      expect(await h.post(envelope('still open'))).toBe('delivered');
      expect(contents(await h.mailbox.closeIfDrained(sessionId, late!.cursor))).toEqual(['still open']);
    });

    it('closeIfDrained with nothing after the cursor closes: later posts are refused unwritten, and a repeat stays closed', async () => {
      await postAll('only');
      const read = await h.mailbox.drain(sessionId, undefined);
      expect(await h.mailbox.closeIfDrained(sessionId, read.cursor)).toBeNull();
      expect(await h.post(envelope('too late'))).toBe('closed');
      expect(await h.postRaw(sessionId, 'raw too late')).toBe('closed');
      expect(await h.mailbox.closeIfDrained(sessionId, read.cursor)).toBeNull();
      const left = await h.mailbox.closeNow(sessionId, read.cursor);
      expect(left).toMatchObject({ envelopes: [], invalid: 0, cursor: read.cursor });
      expect(await h.size(sessionId)).toBe(1);
    });

    it('closeNow closes whatever waits and returns what was never read; a repeat returns nothing more', async () => {
      await postAll('read');
      const read = await h.mailbox.drain(sessionId, undefined);
      await postAll('unread 1', 'unread 2');
      const left = await h.mailbox.closeNow(sessionId, read.cursor);
      expect(contents(left)).toEqual(['unread 1', 'unread 2']);
      expect(await h.post(envelope('after'))).toBe('closed');
      expect(await h.mailbox.closeNow(sessionId, left.cursor)).toMatchObject({ envelopes: [], invalid: 0, cursor: left.cursor });
      await h.mailbox.remove(sessionId, [...read.ids, ...left.ids]);
      expect(await h.size(sessionId)).toBe(0);
    });

    it('a mailbox nobody posted to closes too, and sessions are apart', async () => {
      const other = randomUUID();
      expect(await h.post(envelope('for the other', other))).toBe('delivered');
      expect(await h.mailbox.closeIfDrained(sessionId, undefined)).toBeNull();
      expect(await h.post(envelope('x'))).toBe('closed');
      expect(await h.post(envelope('still for the other', other))).toBe('delivered');
      expect(contents(await h.mailbox.drain(other, undefined))).toEqual(['for the other', 'still for the other']);
    });

    it('the close is atomic with posts racing it: each post is either returned by one of the run last drains or refused', async () => {
      await postAll('first');
      const posts = (async () => {
        const outcomes: Array<{ content: string; outcome: MailboxPostOutcome }> = [];
        for (let i = 0; i < 60; i++) {
          const content = `racing ${i}`;
          outcomes.push({ content, outcome: await h.post(envelope(content)) });
          await new Promise((resolve) => setImmediate(resolve));
        }
        return outcomes;
      })();
      const drained: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const late = await h.mailbox.closeIfDrained(sessionId, cursor);
        if (!late) break;
        drained.push(...contents(late)!);
        cursor = late.cursor;
      }
      const outcomes = await posts;
      const delivered = outcomes.filter((post) => post.outcome === 'delivered').map((post) => post.content);
      expect(drained).toEqual(['first', ...delivered]);
      expect(outcomes.slice(delivered.length).every((post) => post.outcome === 'closed')).toBe(true);
      expect((await h.mailbox.drain(sessionId, cursor)).envelopes).toEqual([]);
    });
  });
}
