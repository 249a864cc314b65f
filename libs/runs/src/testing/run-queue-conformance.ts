// The file, not the package: @switchyard/testing re-exports this suite, and the helper imports nothing.
import { waitFor } from '@switchyard/testing/src/wait-for';
import type { RunEnding, RunQueue } from '../ports';

/** What the conformance suite needs of an adapter under test. */
export interface RunQueueHarness {
  /** A queue acting for the runner process `owner`, with leases of `leaseMs`. */
  queue(owner: string, leaseMs: number): RunQueue;
  /** A new lane of `concurrency` in the workspace labelled `workspace` (made on first use; absent: the harness's own); returns its name. */
  lane(concurrency: number, workspace?: string): Promise<string>;
  /** Queues a run at the end of the lane's line; returns its id. */
  enqueue(lane: string): Promise<string>;
  /** Records that the run started a call not safe to repeat and has no result of it (decision 0051). */
  startWriteCall(runId: string): Promise<void>;
  /** The run's status and reason as the queue holds them. */
  statusOf(runId: string): Promise<{ status: string; reason: string | null }>;
  close(): Promise<void>;
}

const COMPLETED: RunEnding = { status: 'completed', reason: null, outcome: null, error: null };
const LONG_LEASE = 60_000;

/**
 * Why this exists: the runner's unit tests run against a fake run queue, and
 * they only mean something if the fake keeps the real queue's rules. This is
 * the one suite both must pass (the fake and the SQL adapter, both in
 * libs/runs): claims respect the lane's concurrency and FIFO, even when
 * many go out at once; a lapsed lease puts its run back in line, ahead of
 * the runs queued after it, unless the run is inside a call not safe to
 * repeat: that one is failed runner_lost and frees its slot; an ending claims the lane's next run in the same call; a parked run
 * frees its lane, and resumed it is claimed ahead of the runs queued after it; a claim takes
 * workspaces in the fair order (fewest runs in flight, then the oldest queued run).
 *
 * The claims start runs across workspaces and lanes, so each test leaves its lanes full or
 * without queued runs: what it left cannot be started by the next test's claims.
 */
export function describeRunQueueConformance(name: string, setup: () => Promise<RunQueueHarness>): void {
  describe(`run queue conformance: ${name}`, () => {
    let h: RunQueueHarness;
    beforeAll(async () => {
      h = await setup();
    });
    afterAll(async () => {
      await h?.close();
    });
    const queueRuns = async (lane: string, count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await h.enqueue(lane));
      return ids;
    };

    it('a claim starts the oldest queued runs, up to the lane concurrency and the limit', async () => {
      const lane = await h.lane(2);
      const ids = await queueRuns(lane, 4);
      const queue = h.queue('runner-a', LONG_LEASE);
      const first = await queue.claim(ids[3]!, 1);
      expect(first.started.map((run) => run.id)).toEqual([ids[0]]);
      const second = await queue.claim(ids[3]!, 10);
      expect(second.started.map((run) => run.id)).toEqual([ids[1]]);
      expect(second.started[0]).toMatchObject({ status: 'running', context: { sessionId: expect.any(String) }, stop: null });
      expect((await queue.claim(ids[3]!, 10)).started).toEqual([]);
      expect((await h.statusOf(ids[2]!)).status).toBe('queued');
    });

    it('concurrent claims of one lane from two owners never start more than its concurrency', async () => {
      const lane = await h.lane(3);
      const ids = await queueRuns(lane, 12);
      const a = h.queue('runner-a', LONG_LEASE);
      const b = h.queue('runner-b', LONG_LEASE);
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim(ids[i]!, 10)));
      const started = claims.flatMap((claim) => claim.started.map((run) => run.id));
      expect(started.sort()).toEqual(ids.slice(0, 3).sort());
      const statuses = await Promise.all(ids.map(async (id) => (await h.statusOf(id)).status));
      expect(statuses.filter((status) => status === 'running')).toHaveLength(3);
    });

    it('ending a run claims the lane next run in the same call; a second ending of it does not apply', async () => {
      const lane = await h.lane(1);
      const [first, second, third] = await queueRuns(lane, 3);
      const queue = h.queue('runner-a', LONG_LEASE);
      expect((await queue.claim(first!, 5)).started.map((run) => run.id)).toEqual([first]);
      const ended = await queue.end(first!, COMPLETED, 5);
      expect(ended.ended).toBe(true);
      expect(ended.started.map((run) => run.id)).toEqual([second]);
      expect(await h.statusOf(first!)).toEqual({ status: 'completed', reason: null });
      const again = await queue.end(first!, COMPLETED, 5);
      expect(again.ended).toBe(false);
      expect(again.started).toEqual([]);
      // Another owner cannot end a run it does not hold.
      expect((await h.queue('runner-b', LONG_LEASE).end(second!, COMPLETED, 5)).ended).toBe(false);
      expect((await h.statusOf(third!)).status).toBe('queued');
    });

    it('a lapsed lease puts its run back in line: the next claim continues it ahead of the runs queued after it; renewal reports it lost', async () => {
      const lane = await h.lane(1);
      const [lapsed, next] = await queueRuns(lane, 2);
      const dying = h.queue('runner-dead', 1);
      expect((await dying.claim(lapsed!, 1)).started.map((run) => run.id)).toEqual([lapsed]);
      const other = h.queue('runner-b', LONG_LEASE);
      const claim = await waitFor(async () => {
        const attempt = await other.claim(next!, 1);
        return attempt.started.length > 0 ? attempt : undefined;
      }, { timeoutMs: 5000, intervalMs: 10, what: 'the lapsed run continued' });
      expect(claim.lost).toEqual([]);
      expect(claim.started.map((run) => run.id)).toEqual([lapsed]);
      expect(await h.statusOf(lapsed!)).toEqual({ status: 'running', reason: null });
      expect((await h.statusOf(next!)).status).toBe('queued');
      expect([...(await dying.renew([lapsed!]))]).toEqual([]);
      expect([...(await other.renew([lapsed!]))]).toEqual([lapsed]);
      // The dead runner's late ending does not apply.
      expect((await dying.end(lapsed!, COMPLETED, 0)).ended).toBe(false);
    });

    it('a lapsed lease inside a call not safe to repeat is failed runner_lost by the next claim, which takes its slot', async () => {
      const lane = await h.lane(1);
      const [lost, next] = await queueRuns(lane, 2);
      const dying = h.queue('runner-dead', 1);
      expect((await dying.claim(lost!, 1)).started.map((run) => run.id)).toEqual([lost]);
      await h.startWriteCall(lost!);
      const other = h.queue('runner-b', LONG_LEASE);
      const claim = await waitFor(async () => {
        const attempt = await other.claim(next!, 1);
        return attempt.lost.length > 0 ? attempt : undefined;
      }, { timeoutMs: 5000, intervalMs: 10, what: 'the lapsed lease failed' });
      expect(claim.lost.map((run) => run.id)).toEqual([lost]);
      expect(claim.started.map((run) => run.id)).toEqual([next]);
      expect(await h.statusOf(lost!)).toEqual({ status: 'failed', reason: 'runner_lost' });
      expect([...(await dying.renew([lost!]))]).toEqual([]);
    });

    it('a parked run frees its lane; resumed, it is claimed ahead of the runs queued after it', async () => {
      const lane = await h.lane(1);
      const [parked, second, third] = await queueRuns(lane, 3);
      const queue = h.queue('runner-a', LONG_LEASE);
      await queue.claim(parked!, 1);
      const park = await queue.park(parked!, 1);
      expect(park.ended).toBe(true);
      expect(park.started.map((run) => run.id)).toEqual([second]);
      expect((await h.statusOf(parked!)).status).toBe('awaiting_approval');
      expect(await queue.resume(parked!)).toBe(true);
      expect(await queue.resume(parked!)).toBe(false);
      const next = await queue.end(second!, COMPLETED, 1);
      expect(next.started.map((run) => run.id)).toEqual([parked]);
      expect((await h.statusOf(third!)).status).toBe('queued');
    });

    it('a claim takes workspaces in the fair order: fewest runs in flight first, then the oldest queued run', async () => {
      const queue = h.queue('runner-a', LONG_LEASE);
      // Workspace fair-a has a run in flight.
      const [inFlight] = await queueRuns(await h.lane(1, 'fair-a'), 1);
      expect((await queue.claim(inFlight!, 1)).started.map((run) => run.id)).toEqual([inFlight]);
      const laneA = await h.lane(5, 'fair-a');
      const laneB = await h.lane(5, 'fair-b');
      const [a1, a2] = await queueRuns(laneA, 2);
      const [b1, b2] = await queueRuns(laneB, 2);
      const next = async () => (await queue.claim(a1!, 1)).started.map((run) => run.id);
      // fair-b has none in flight: its run first, though fair-a's were queued before it.
      expect(await next()).toEqual([b1]);
      // One in flight each: the oldest queued run.
      expect(await next()).toEqual([a1]);
      // fair-a has two in flight, fair-b one: fair-b's, though a2 is older.
      expect(await next()).toEqual([b2]);
      expect(await next()).toEqual([a2]);
      expect(await next()).toEqual([]);
    });

    it('the sweep names lanes with old queued runs or lapsed leases', async () => {
      const lane = await h.lane(1);
      const [run] = await queueRuns(lane, 1);
      const queue = h.queue('runner-a', LONG_LEASE);
      expect(await queue.lanesToSweep(0)).toContain(lane);
      expect(await queue.lanesToSweep(LONG_LEASE)).not.toContain(lane);
      await h.queue('runner-dead', 1).claim(run!, 1);
      await waitFor(async () => (await queue.lanesToSweep(LONG_LEASE)).includes(lane), { timeoutMs: 5000, intervalMs: 10, what: 'the lapsed lease seen' });
      expect((await queue.claimLane(lane, 1)).started.map((started) => started.id)).toEqual([run]);
    });
  });
}
