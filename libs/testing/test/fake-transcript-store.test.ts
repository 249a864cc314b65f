import { describeTranscriptConformance, FakeTranscriptStore } from '../src';

/** The fake transcript keeps the real one's rules (the same suite runs against SqlTranscriptStore). */
describeTranscriptConformance('FakeTranscriptStore', async () => {
  const store = new FakeTranscriptStore();
  return {
    store,
    lastSeq: async (sessionId) => store.lastSeq(sessionId),
    close: async () => undefined,
  };
});
