import { describeRunQueueConformance, FakeRunQueueStore } from '../src/testing';

/** The fake run queue keeps the real queue's rules (the same suite runs against SqlRunQueue). */
describeRunQueueConformance('FakeRunQueue', async () => {
  const store = new FakeRunQueueStore();
  return {
    queue: (owner, leaseMs) => store.as(owner, leaseMs),
    lane: async (concurrency, workspace) => store.addLane(concurrency, undefined, workspace),
    enqueue: async (lane) => store.enqueue(lane),
    startWriteCall: async (runId) => {
      store.runs.get(runId)!.inWriteCall = true;
    },
    statusOf: async (runId) => {
      const run = store.runs.get(runId)!;
      return { status: run.status, reason: run.reason };
    },
    close: async () => undefined,
  };
});
