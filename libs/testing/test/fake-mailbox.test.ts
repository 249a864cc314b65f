import { describeMailboxConformance, FakeMailbox } from '../src';

/** The fake mailbox keeps the real one's rules (the same suite runs against RedisMailbox). */
describeMailboxConformance('FakeMailbox', async () => {
  const mailbox = new FakeMailbox();
  return {
    mailbox,
    post: (envelope) => mailbox.post(envelope),
    postRaw: (sessionId, raw) => mailbox.postRaw(sessionId, raw),
    size: async (sessionId) => mailbox.size(sessionId),
    close: async () => undefined,
  };
});
