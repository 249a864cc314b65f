import { MAILBOX_FIELD, mailboxStream } from '@switchyard/contracts';
import { SessionMailbox, toKey } from '@switchyard/redis';
import { createTestRedis, describeMailboxConformance, type TestRedis } from '@switchyard/testing';
import { RedisMailbox } from '../src/adapters/redis-mailbox';

/**
 * The runner's mailbox on a real Redis passes the conformance suite the fake
 * passes. Posts go through SessionMailbox, as the gateway's do; raw entries
 * are written with XADD on the same stream, as a foreign writer would.
 */
describeMailboxConformance('RedisMailbox', async () => {
  const t: TestRedis = await createTestRedis();
  const gateway = new SessionMailbox(t.redis, t.prefix, { closedTtlSeconds: 60 });
  const stream = (sessionId: string) => toKey(t.prefix, ...mailboxStream(sessionId));
  const closedKey = (sessionId: string) => toKey(t.prefix, 'mailbox-closed', sessionId);
  return {
    mailbox: new RedisMailbox(t.redis, t.prefix),
    post: (envelope) => gateway.post(envelope),
    postRaw: async (sessionId, raw) => {
      if ((await t.redis.exists(closedKey(sessionId))) === 1) return 'closed';
      await t.redis.xadd(stream(sessionId), '*', MAILBOX_FIELD, raw);
      return 'delivered';
    },
    size: (sessionId) => t.redis.xlen(stream(sessionId)),
    close: () => t.cleanup(),
  };
});
