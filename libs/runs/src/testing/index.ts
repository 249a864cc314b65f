/**
 * The run queue's test doubles, beside the queue they stand in for: the fake (the runner's unit
 * tests) and the conformance suite the fake and SqlRunQueue both pass. Imported by tests only
 * (through `@switchyard/testing`, which re-exports them); the suite needs jest's globals.
 */
export { FakeRunQueue, FakeRunQueueStore, type FakeQueuedRun } from './fake-run-queue';
export { describeRunQueueConformance, type RunQueueHarness } from './run-queue-conformance';
export { setRunColumns, type Queryable, type RunColumns, type RunTarget } from './run-columns';
