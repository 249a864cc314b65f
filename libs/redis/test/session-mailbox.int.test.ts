import { randomUUID } from 'node:crypto';
import { mailboxStream, type MailboxEnvelope } from '@switchyard/contracts';
import { SessionMailbox, toKey } from '@switchyard/redis';
import { createTestRedis, type TestRedis } from '@switchyard/testing';

/**
 * The one session mailbox module both the gateway and the runner use: a post
 * after the close is refused with nothing written; the close that finds
 * entries after the run's cursor returns them and leaves the mailbox open.
 */
describe('SessionMailbox (real Redis)', () => {
  let t: TestRedis;
  let box: SessionMailbox;
  let sessionId: string;

  const envelope = (content: string): MailboxEnvelope => ({
    schemaVersion: 1,
    id: randomUUID(),
    sessionId,
    from: { type: 'user', userId: randomUUID() },
    content,
    sentAt: new Date().toISOString(),
  });

  beforeEach(async () => {
    t = await createTestRedis();
    box = new SessionMailbox(t.redis, t.prefix, { closedTtlSeconds: 60 });
    sessionId = randomUUID();
  });
  afterEach(async () => t.cleanup());

  it('reads posts after a cursor, oldest first, and deletes them by id', async () => {
    expect(await box.post(envelope('a'))).toBe('delivered');
    expect(await box.post(envelope('b'))).toBe('delivered');
    const first = await box.read(sessionId, undefined);
    expect(first.envelopes.map((e) => e.content)).toEqual(['a', 'b']);
    expect((await box.read(sessionId, first.cursor)).envelopes).toEqual([]);
    await box.remove(sessionId, first.ids);
    expect(await t.redis.xlen(toKey(t.prefix, ...mailboxStream(sessionId)))).toBe(0);
  });

  it('closeIfDrained returns what came after the cursor and stays open; with nothing new it closes, and later posts are refused unwritten', async () => {
    await box.post(envelope('early'));
    const read = await box.read(sessionId, undefined);
    await box.post(envelope('late'));
    const late = await box.closeIfDrained(sessionId, read.cursor);
    expect(late?.envelopes.map((e) => e.content)).toEqual(['late']);
    expect(await box.post(envelope('still open'))).toBe('delivered');
    const again = await box.closeIfDrained(sessionId, late!.cursor);
    expect(again?.envelopes.map((e) => e.content)).toEqual(['still open']);
    expect(await box.closeIfDrained(sessionId, again!.cursor)).toBeNull();
    expect(await box.post(envelope('too late'))).toBe('closed');
    const key = toKey(t.prefix, ...mailboxStream(sessionId));
    expect((await t.redis.xrange(key, '-', '+')).length).toBe(3);
    expect(await t.redis.ttl(key)).toBeGreaterThan(0);
  });

  it('closeNow closes whatever waits and returns what was never read', async () => {
    await box.post(envelope('read'));
    const read = await box.read(sessionId, undefined);
    await box.post(envelope('unread 1'));
    await box.post(envelope('unread 2'));
    const left = await box.closeNow(sessionId, read.cursor);
    expect(left.envelopes.map((e) => e.content)).toEqual(['unread 1', 'unread 2']);
    expect(await box.post(envelope('after'))).toBe('closed');
  });

  it('a mailbox nobody posted to closes too (posts after it are refused)', async () => {
    expect(await box.closeIfDrained(sessionId, undefined)).toBeNull();
    expect(await box.post(envelope('x'))).toBe('closed');
  });

  it('a resident session: the close marks it idle with no expiry, the first post after wakes it once, the rest ride along; retire ends it', async () => {
    const [stream, closed] = [toKey(t.prefix, ...mailboxStream(sessionId)), toKey(t.prefix, 'mailbox-closed', sessionId)];
    await box.makeResident(sessionId);
    expect(await box.postResident(envelope('first'))).toBe('woke');
    expect(await box.postResident(envelope('second'))).toBe('delivered');
    // The turn reads both; a post before its last drain is returned by it (no wake), one after wakes.
    const read = await box.read(sessionId, undefined);
    expect(await box.postResident(envelope('late but drained'))).toBe('delivered');
    const late = await box.closeIfDrained(sessionId, read.cursor);
    expect(late?.envelopes.map((e) => e.content)).toEqual(['late but drained']);
    expect(await box.closeIfDrained(sessionId, late!.cursor)).toBeNull();
    expect(await t.redis.ttl(closed)).toBe(-1);
    expect(await t.redis.ttl(stream)).toBe(-1);
    expect(await box.postResident(envelope('after the last drain'))).toBe('woke');
    expect(await box.postResident(envelope('coalesced'))).toBe('delivered');
    await box.retire(sessionId);
    expect(await t.redis.ttl(closed)).toBeGreaterThan(0);
    expect(await box.post(envelope('to a retired session'))).toBe('closed');
  });

  it('postResidentOnce: a repeat of one envelope writes nothing and answers what the first post did', async () => {
    const stream = toKey(t.prefix, ...mailboxStream(sessionId));
    await box.makeResident(sessionId);
    const event = envelope('a watched fact');
    expect(await box.postResidentOnce(event)).toBe('woke');
    // The poster crashed before its wake and posts again: it still learns that it woke the session.
    expect(await box.postResidentOnce(event)).toBe('woke');
    expect(await t.redis.xlen(stream)).toBe(1);
    const other = envelope('another fact');
    expect(await box.postResidentOnce(other)).toBe('delivered');
    expect(await box.postResidentOnce(other)).toBe('delivered');
    expect(await t.redis.xlen(stream)).toBe(2);
  });
});
