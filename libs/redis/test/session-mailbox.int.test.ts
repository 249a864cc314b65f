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
    // The post that woke it put it in the open set, as postResident does.
    expect(await box.openSince(0)).toEqual([sessionId]);
  });

  it("a resident session's forced close keeps what its turn never read: open for a follow-up (waking), or idle until the next post", async () => {
    const stream = toKey(t.prefix, ...mailboxStream(sessionId));
    await box.makeResident(sessionId);
    expect(await box.postResident(envelope('read'))).toBe('woke');
    const read = await box.read(sessionId, undefined);
    await box.postResident(envelope('unread 1'));
    await box.postResident(envelope('unread 2'));
    const kept = await box.closeNow(sessionId, read.cursor);
    expect(kept.kept).toBe('waking');
    expect(kept.envelopes.map((e) => e.content)).toEqual(['unread 1', 'unread 2']);
    // Still open: a post rides along with the follow-up, it wakes nothing; nothing was deleted.
    expect(await box.postResident(envelope('rides along'))).toBe('delivered');
    expect(await t.redis.xlen(stream)).toBe(4);
    // The follow-up turn reads them all; with nothing new its close marks the mailbox idle.
    const next = await box.read(sessionId, read.cursor);
    expect(next.envelopes.map((e) => e.content)).toEqual(['unread 1', 'unread 2', 'rides along']);
    const idle = await box.closeNow(sessionId, next.cursor);
    expect(idle.kept).toBeUndefined();
    expect(await box.postResident(envelope('wakes'))).toBe('woke');
    // A turn that took no step keeps them too, but idle: the next post is the wake.
    const noStep = await box.closeNow(sessionId, next.cursor, { followUp: false });
    expect(noStep).toMatchObject({ kept: 'idle', envelopes: [expect.objectContaining({ content: 'wakes' })] });
    expect(await box.postResident(envelope('wakes again'))).toBe('woke');
    expect((await box.read(sessionId, next.cursor)).envelopes.map((e) => e.content)).toEqual(['wakes', 'wakes again']);
  });

  it('the open set holds resident mailboxes opened and not yet closed idle: by a post that woke, or a close that kept messages; retire drops them', async () => {
    await box.makeResident(sessionId);
    const other = randomUUID();
    await box.makeResident(other);
    expect(await box.openSince(0)).toEqual([]);
    expect(await box.postResident(envelope('wake'))).toBe('woke');
    expect(await box.openSince(0)).toEqual([sessionId]);
    expect(await box.openSince(60_000)).toEqual([]);
    // Its turn's last drain closes it idle: out of the set.
    const read = await box.read(sessionId, undefined);
    expect(await box.closeIfDrained(sessionId, read.cursor)).toBeNull();
    expect(await box.openSince(0)).toEqual([]);
    await box.postResident({ ...envelope('to the other'), sessionId: other });
    expect(await box.openSince(0)).toEqual([other]);
    await box.forgetOpen([other]);
    expect(await box.openSince(0)).toEqual([]);
    await box.postResident(envelope('again'));
    await box.touchOpen([sessionId, other]);
    // touchOpen re-scores members, it adds none.
    expect(await box.openSince(0)).toEqual([sessionId]);
    await box.retire(sessionId);
    expect(await box.openSince(0)).toEqual([]);
  });

  it('discard deletes the entries of the given envelopes and leaves the rest', async () => {
    const [a, b, c] = [envelope('a'), envelope('b'), envelope('c')];
    for (const e of [a, b, c]) await box.post(e);
    await box.discard(sessionId, [a.id, c.id, randomUUID()]);
    expect((await box.read(sessionId, undefined)).envelopes.map((e) => e.content)).toEqual(['b']);
  });

  it('a session that is not resident: closeNow closes as before, returning what was never read, nothing kept', async () => {
    await box.post(envelope('x'));
    const left = await box.closeNow(sessionId, undefined);
    expect(left.kept).toBeUndefined();
    expect(left.envelopes).toHaveLength(1);
    expect(await box.openSince(0)).toEqual([]);
  });
});
