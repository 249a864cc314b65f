import { OPS_FACT_KINDS, type OpsFactKind } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createLogger } from '@switchyard/logging';
import { waitFor } from '@switchyard/testing';
import { OpsWatcher } from '../src/ops/ops-watcher';
import type { OpsDraft, OpsStore, RecordOptions } from '../src/ops/ops-ports';

/** Issue 36: the watcher's own behaviour on a fake store — what it hands the store, and how it survives a failing detector and closes. */

const log = createLogger({ service: 'test', level: 'silent' });
const acme = { id: newId(), slug: 'acme' };

/** A store that observes fixed trouble and records every draft it is given (no rate limit: that is the SQL store's, tested on PostgreSQL). */
function fakeStore(overrides: Partial<OpsStore> = {}): OpsStore & { recorded: Array<{ draft: OpsDraft; options: RecordOptions }>; recoveries: OpsDraft[] } {
  const recorded: Array<{ draft: OpsDraft; options: RecordOptions }> = [];
  const recoveries: OpsDraft[] = [];
  return {
    recorded,
    recoveries,
    lostRunners: async () => [{ workspace: acme, runner: 'r-1', noteIds: ['4', '5'], lapsedAt: new Date(0), runs: [] }],
    backloggedLanes: async () => [{ workspace: acme, lane: 'agent:a', agentId: newId(), depth: 10, oldestQueuedAt: new Date(0), oldestAgeMs: 5 }],
    openBacklogs: async () => [
      { workspace: acme, lane: 'agent:b', agentId: null, depth: 2, since: new Date(0) },
      { workspace: acme, lane: 'agent:c', agentId: null, depth: 3, since: new Date(0) },
    ],
    deadLetterGrowth: async () => [],
    modelFailures: async () => [],
    record: async (draft, options) => {
      recorded.push({ draft, options });
      return true;
    },
    recordRecovery: async (draft) => {
      recoveries.push(draft);
      return true;
    },
    prune: async () => 0,
    ...overrides,
  };
}

describe('OpsWatcher', () => {
  it('hands the store each draft with the window, opening backlogs, settling the notes of a lost runner, recovering lanes below half the threshold', async () => {
    const store = fakeStore();
    const counted: Array<[OpsFactKind, string]> = [];
    const watcher = new OpsWatcher({
      store,
      log,
      thresholds: { backlogDepth: 6, deadLetters: 1, modelErrors: 1 },
      windowMs: 1000,
      intervalMs: 60_000,
      clock: () => new Date(42),
      metrics: { fact: (kind, outcome) => counted.push([kind, outcome]), ticked: () => undefined },
    });
    expect(await watcher.tick()).toEqual({ recorded: 3, suppressed: 0 });
    expect(store.recorded.map(({ draft, options }) => [draft.kind, options])).toEqual([
      [OPS_FACT_KINDS.runnerLost, { now: new Date(42), windowMs: 1000, settles: ['4', '5'] }],
      [OPS_FACT_KINDS.queueBacklogged, { now: new Date(42), windowMs: 1000, opens: true }],
    ]);
    // Half of 6 is 3: lane c at 3 is not recovered yet, lane b at 2 is.
    expect(store.recoveries.map((draft) => draft.key)).toEqual(['agent:b']);
    expect(counted).toEqual([
      [OPS_FACT_KINDS.runnerLost, 'recorded'],
      [OPS_FACT_KINDS.queueBacklogged, 'recorded'],
      [OPS_FACT_KINDS.queueRecovered, 'recorded'],
    ]);
  });

  it('a detector that fails leaves the others to record, and the next tick tries it again', async () => {
    let fail = true;
    const store = fakeStore({
      lostRunners: async () => {
        if (fail) throw new Error('connection refused');
        return [];
      },
    });
    const watcher = new OpsWatcher({ store, log, thresholds: { backlogDepth: 6, deadLetters: 1, modelErrors: 1 }, windowMs: 1000, intervalMs: 60_000 });
    expect((await watcher.tick()).recorded).toBe(2);
    fail = false;
    expect((await watcher.tick()).recorded).toBe(2);
  });

  it('looks every interval once started, and close waits for the look in progress', async () => {
    let release: () => void = () => undefined;
    let looks = 0;
    const store = fakeStore({
      prune: async () => {
        looks++;
        if (looks === 3) await new Promise<void>((resolve) => (release = resolve));
        return 0;
      },
    });
    const watcher = new OpsWatcher({ store, log, thresholds: { backlogDepth: 6, deadLetters: 1, modelErrors: 1 }, windowMs: 1000, intervalMs: 20 });
    watcher.start();
    await waitFor(async () => looks === 3, { what: 'three looks' });
    let closed = false;
    const closing = watcher.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    release();
    await closing;
    expect(looks).toBe(3);
  });
});
