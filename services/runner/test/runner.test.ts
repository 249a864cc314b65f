import { createLogger } from '@switchyard/logging';
import { Runner, type RunnerMetrics } from '../src/runner';
import type { ExecutableRun, ExecutionContext, ExecutionResult, Executor } from '../src/ports';
import { FakeAgentSlots, FakeRunStore, FakeWaker } from './fake-ports';
import { StepExecutor } from './step-executor';

const WS = '0190a000-0000-7000-8000-000000000001';
const AGENT = '0190a000-0000-7000-8000-0000000000a1';
const runId = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const spec = (provider: 'scripted' | 'openai' = 'scripted', concurrency = 1) => ({
  name: 'a',
  instructions: 'x',
  model: { provider, name: 'm' },
  script: [{ say: 'one' }, { say: 'two' }],
  triggers: [{ kind: 'x.y' }],
  flow: { concurrency },
});

function setup(executor: Executor = new StepExecutor(), chainMax = 20, openLanes = 0, metrics?: RunnerMetrics) {
  const store = new FakeRunStore();
  const slots = new FakeAgentSlots();
  const waker = new FakeWaker();
  const runner = new Runner({ store, slots, executor, waker, log: createLogger({ service: 'test', level: 'silent' }), leaseMs: 1000, backoff: { minMs: 10, maxMs: 10, capMs: 100 }, random: () => 0, chainMax, openLanes, metrics });
  const add = (n: number, s: unknown = spec()) =>
    store.add({ id: runId(n), workspaceId: WS, workspaceSlug: 'ws', agentId: AGENT, agentVersion: 1, status: 'queued', eventId: null, depth: 0, spec: s });
  const job = (n: number) => ({ schemaVersion: 1 as const, runId: runId(n), workspaceId: WS, agentId: AGENT });
  return { store, slots, waker, runner, add, job };
}

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error('condition not reached');
}

describe('Runner', () => {
  it('runs the first queued run, records started then completed, frees the slot and wakes the next', async () => {
    const { store, slots, waker, runner, add, job } = setup(undefined, 1);
    add(1);
    add(2);
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(1))).toMatchObject({ status: 'completed', ending: { outcome: { summary: 'one\ntwo', turns: 2, toolCalls: 0 } } });
    expect(store.kinds(runId(1))).toEqual(['agent.run.started', 'agent.run.completed']);
    expect(slots.held.size).toBe(0);
    expect(waker.woken).toEqual([[runId(2)]]);
  });

  it('goes on with the agent\'s next queued runs in order, up to chainMax, then wakes the rest', async () => {
    const { store, waker, runner, add, job } = setup(undefined, 3);
    for (let n = 1; n <= 5; n++) add(n);
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect([1, 2, 3, 4, 5].map((n) => store.runs.get(runId(n))!.status)).toEqual(['completed', 'completed', 'completed', 'queued', 'queued']);
    expect(waker.woken).toEqual([[runId(4)]]);
    // A chained run's own job finds it ended, and is a lane for the rest of the line.
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    expect([4, 5].map((n) => store.runs.get(runId(n))!.status)).toEqual(['completed', 'completed']);
    for (let n = 1; n <= 5; n++) expect(store.kinds(runId(n))).toEqual(['agent.run.started', 'agent.run.completed']);
  });

  it('a lane going down the line hands its slot on: one line read and one claim, then each ending starts the next', async () => {
    const { store, slots, runner, add, job } = setup(undefined, 20);
    for (let n = 1; n <= 4; n++) add(n);
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect([1, 2, 3, 4].map((n) => store.runs.get(runId(n))!.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const started = [1, 2, 3, 4].map((n) => store.runs.get(runId(n))!.startedAt!);
    expect(started).toEqual([...started].sort((a, b) => a - b));
    // One read and one claim for the first run; runs 1–3 ended with something behind them, so
    // their endings started the next; run 4 was the last in line, so its ending started nothing.
    expect(store.lineReads).toEqual([AGENT]);
    expect(slots.claims).toBe(1);
    expect(store.handedOff).toEqual([runId(1), runId(2), runId(3)]);
    expect(slots.held.size).toBe(0);
    for (let n = 1; n <= 4; n++) expect(store.kinds(runId(n))).toEqual(['agent.run.started', 'agent.run.completed']);
  });

  it('a hand-off passes over the runs other slots hold, and stops at a run of another version', async () => {
    const { store, slots, runner, add, job } = setup(undefined, 20);
    add(1, spec('scripted', 2));
    add(2, spec('scripted', 2));
    add(3, spec('scripted', 2));
    store.add({ id: runId(4), workspaceId: WS, workspaceSlug: 'ws', agentId: AGENT, agentVersion: 2, status: 'queued', eventId: null, depth: 0, spec: spec('scripted', 2) });
    // Another lane claimed run 2 (it starts it next).
    await slots.acquire(AGENT, 2, runId(2));
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect([1, 2, 3].map((n) => store.runs.get(runId(n))!.status)).toEqual(['completed', 'queued', 'completed']);
    // Run 3 was handed over; run 4 (version 2) was not: the lane claimed it as usual.
    expect(store.handedOff).toEqual([runId(1), runId(3)]);
    expect(store.runs.get(runId(4))!.status).toBe('completed');
    expect(slots.claims).toBe(2);
  });

  it('a hand-off whose slot lapsed fails the started run visibly when no slot is free', async () => {
    const { store, slots, runner, add, job } = setup(undefined, 20);
    const slow = { ...spec(), model: { provider: 'scripted' as const, name: 'm', params: { stepMs: 30 } } };
    add(1, slow);
    add(2, slow);
    add(3, slow);
    const lane = runner.handle(job(1));
    await waitUntil(() => store.runs.get(runId(1))!.status === 'running');
    // Run 1's lease lapses and another runner takes the agent's only slot: the hand-off finds none.
    slots.expire(runId(1));
    await slots.acquire(AGENT, 1, runId(9));
    expect(await lane).toEqual({ action: 'done' });
    // Run 1 ended before its renewal came round (every third of the lease) to notice.
    expect(store.runs.get(runId(1))!.status).toBe('completed');
    expect(store.runs.get(runId(2))).toMatchObject({ status: 'failed', ending: { reason: 'runner_lost' } });
    expect(store.kinds(runId(2))).toEqual(['agent.run.started', 'agent.run.failed']);
    expect(store.runs.get(runId(3))!.status).toBe('queued');
  });

  /** Makes another lane's hand-off start `raced` (its slot naming it) between this lane's claim and its start. */
  const raceFirstStart = (store: FakeRunStore, slots: FakeAgentSlots, raced: string, lapse = false) => {
    const markRunning = store.markRunning.bind(store);
    let done = false;
    store.markRunning = async (id, instead) => {
      if (!done) {
        done = true;
        await markRunning(raced);
        await slots.acquire(AGENT, 2, raced);
        if (lapse) slots.expire(raced);
      }
      return markRunning(id, instead);
    };
  };

  it('a claim whose run another lane started meanwhile starts the next in line in its place, its slot passed on', async () => {
    const { store, slots, runner, add, job } = setup(undefined, 1);
    [1, 2, 3].forEach((n) => add(n, spec('scripted', 2)));
    raceFirstStart(store, slots, runId(1));
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect(store.startedInstead).toEqual([runId(2)]);
    expect([1, 2, 3].map((n) => store.runs.get(runId(n))!.status)).toEqual(['running', 'completed', 'queued']);
    expect(store.kinds(runId(2))).toEqual(['agent.run.started', 'agent.run.completed']);
    // One claim: no release and claim again. The other lane's slot still names its run.
    expect(slots.claims).toBe(1);
    expect(await slots.holders(AGENT)).toEqual(new Set([runId(1)]));
  });

  it('a claim that starts another run in its place, its slot lapsed, fails that run visibly', async () => {
    const { store, slots, runner, add, job } = setup(undefined, 1);
    [1, 2, 3].forEach((n) => add(n, spec('scripted', 2)));
    raceFirstStart(store, slots, runId(1), true);
    await runner.handle(job(1));
    expect(store.runs.get(runId(2))).toMatchObject({ status: 'failed', ending: { reason: 'runner_lost' } });
    expect(store.kinds(runId(2))).toEqual(['agent.run.started', 'agent.run.failed']);
  });

  it('a quiet agent\'s run ends without reading the line', async () => {
    const { store, runner, add, job } = setup();
    add(1);
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(1))!.status).toBe('completed');
    expect(store.lineReads).toEqual([AGENT]);
    expect(store.handedOff).toEqual([]);
  });

  it('FIFO: a later run’s job starts the oldest queued run first, then goes down the line', async () => {
    const { store, waker, runner, add, job } = setup();
    add(1);
    add(2);
    add(3);
    expect(await runner.handle(job(3))).toEqual({ action: 'done' });
    const started = [1, 2, 3].map((n) => store.runs.get(runId(n))!.startedAt!);
    expect(started).toEqual([...started].sort((a, b) => a - b));
    // The jobs of the runs it started for them are withdrawn; its own is the one running.
    expect(waker.withdrawn).toEqual([runId(1), runId(2)]);
    // The jobs of the runs it went through find them ended.
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
  });

  it('a job whose run another lane holds runs the line ahead of it and ends without reading its run', async () => {
    const { store, slots, runner, add, job } = setup(undefined, 20);
    add(1, spec('scripted', 2));
    add(2, spec('scripted', 2));
    // Another lane claimed run 2 (it starts it next); run 1's job sleeps.
    await slots.acquire(AGENT, 2, runId(2));
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(1))!.status).toBe('completed');
    expect(store.runs.get(runId(2))!.status).toBe('queued');
    expect(store.loaded).toEqual([]);
    // When its claim finds no free slot, the line it saw still says where its run is: held
    // (about to start) → done; waiting → later, by its place in line. Neither reads the run.
    await slots.acquire(AGENT, 2, runId(9));
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    add(3, spec('scripted', 2));
    add(4, spec('scripted', 2));
    expect(await runner.handle(job(4))).toEqual({ action: 'later', delayMs: 30 }); // runs 2 and 3 ahead
    expect(store.loaded).toEqual([]);
  });

  it('with every slot held, a job waits, longer the further back its run is', async () => {
    const { store, slots, runner, add, job } = setup();
    add(1);
    add(2);
    add(3);
    store.runs.get(runId(1))!.status = 'running';
    await slots.acquire(AGENT, 1, runId(1));
    expect(await runner.handle(job(3))).toEqual({ action: 'later', delayMs: 20 });
    expect(await runner.handle(job(2))).toEqual({ action: 'later', delayMs: 10 });
    expect(store.runs.get(runId(2))!.status).toBe('queued');
  });

  it('waits while the agent runs another run (its slot is held)', async () => {
    const { store, slots, runner, add, job } = setup();
    add(1);
    add(2);
    store.runs.get(runId(1))!.status = 'running';
    await slots.acquire(AGENT, 1, runId(1));
    expect(await runner.handle(job(2))).toEqual({ action: 'later', delayMs: 10 });
  });

  it('while its lanes hold every slot of the agent, a job waits without reading the line, and is run by them', async () => {
    const { store, waker, runner, add, job } = setup();
    const slow = { ...spec(), model: { provider: 'scripted' as const, name: 'm', params: { stepMs: 50 } } };
    add(1, slow);
    const first = runner.handle(job(1));
    await waitUntil(() => store.runs.get(runId(1))!.status === 'running');
    add(2, slow);
    add(3, slow);
    const reads = store.lineReads.length;
    // Run 2 is next in line (nothing waited behind run 1 when its lane claimed it): the shortest wait.
    expect(await runner.handle(job(2))).toEqual({ action: 'later', delayMs: 10 });
    expect(await runner.handle(job(3))).toEqual({ action: 'later', delayMs: 10 });
    expect(store.lineReads.length).toBe(reads);
    expect(await first).toEqual({ action: 'done' });
    // The slot is free again: the woken job claims as usual, and its lane goes on down the line.
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    expect([1, 2, 3].map((n) => store.runs.get(runId(n))!.status)).toEqual(['completed', 'completed', 'completed']);
    expect(waker.withdrawn).toEqual([runId(3)]);
  });

  it('a job whose run already ended does nothing (at-least-once delivery)', async () => {
    const { store, runner, add, job } = setup();
    add(1);
    await runner.handle(job(1));
    const before = store.facts.length;
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect(store.facts).toHaveLength(before);
  });

  it('a running run whose slot expired is failed runner_lost once, and the next run starts', async () => {
    const { store, slots, runner, add, job } = setup();
    add(1);
    add(2);
    store.runs.get(runId(1))!.status = 'running';
    await slots.acquire(AGENT, 1, runId(1));
    // A repeated job of a run that is running: its runner ends it, or, dead, leaves it to a claim
    // or the sweep once its lease lapsed — this job has nothing to do.
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(1))!.status).toBe('running');
    slots.expire(runId(1));
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(1))).toMatchObject({ status: 'failed', ending: { error: { code: 'runner_lost' } } });
    expect(store.runs.get(runId(2))!.status).toBe('completed');
    expect(await runner.handle(job(1))).toEqual({ action: 'done' });
    expect(store.kinds(runId(1))).toEqual(['agent.run.failed']);
  });

  it('issue 13: a run failed runner_lost is handed to its executor once, to close what its own ending would have (its mailbox)', async () => {
    const abandoned: string[] = [];
    const executor = Object.assign(new StepExecutor(), { abandoned: async (run: { id: string }) => void abandoned.push(run.id) });
    const { store, runner, add } = setup(executor);
    add(1);
    store.runs.get(runId(1))!.status = 'running';
    expect(await runner.sweep()).toEqual({ failed: 1, revived: 0 });
    expect(await runner.sweep()).toEqual({ failed: 0, revived: 0 });
    expect(abandoned).toEqual([runId(1)]);
  });

  it('the sweep fails running runs that no slot holds', async () => {
    const { store, runner, add } = setup();
    add(1);
    store.runs.get(runId(1))!.status = 'running';
    expect(await runner.sweep()).toEqual({ failed: 1, revived: 0 });
    expect(await runner.sweep()).toEqual({ failed: 0, revived: 0 });
  });

  it('the sweep gives a job again to a queued run no slot holds and no live job carries', async () => {
    const { store, slots, waker, runner, add, job } = setup(undefined, 20);
    add(1, spec('scripted', 2));
    add(2, spec('scripted', 2));
    // A lane claimed run 2, then died before starting it; run 2's own job saw it held and ended.
    await slots.acquire(AGENT, 2, runId(2));
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(2))!.status).toBe('queued');
    // While the dead lane's lease lasts, the run is someone's: nothing to revive.
    expect(await runner.sweep()).toEqual({ failed: 0, revived: 0 });
    slots.expire(runId(2));
    expect(await runner.sweep()).toEqual({ failed: 0, revived: 1 });
    expect(waker.revived).toEqual([runId(2)]);
    // Its new job runs it; a run that has a live job is not given another.
    expect(await runner.sweep()).toEqual({ failed: 0, revived: 0 });
    expect(await runner.handle(job(2))).toEqual({ action: 'done' });
    expect(store.runs.get(runId(2))!.status).toBe('completed');
  });

  it('a stop request or the kill switch cancels the run at its next step', async () => {
    const { store, runner, add, job } = setup();
    add(1);
    add(2);
    store.runs.get(runId(1))!.stopRequested = true;
    store.runs.get(runId(2))!.paused = true;
    await runner.handle(job(1));
    expect(store.runs.get(runId(1))).toMatchObject({ status: 'cancelled', ending: { reason: 'stopped', outcome: { turns: 0 } } });
    expect(store.runs.get(runId(2))).toMatchObject({ status: 'cancelled', ending: { reason: 'agents_paused' } });
  });

  describe('lanes opened for a burst (openLanes)', () => {
    /** Counts the runs executing at once, and the most there ever were. */
    class CountingExecutor extends StepExecutor {
      now = 0;
      most = 0;
      override async execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
        this.most = Math.max(this.most, ++this.now);
        try {
          return await super.execute(run, context);
        } finally {
          this.now -= 1;
        }
      }
    }
    const slow = (concurrency: number) => ({ ...spec('scripted', concurrency), model: { provider: 'scripted' as const, name: 'm', params: { stepMs: 30 } } });

    it('a claim that sees runs waiting behind its own and free slots starts them side by side, in line order, their jobs withdrawn', async () => {
      const executor = new CountingExecutor();
      let opened = 0;
      const { store, slots, waker, runner, add, job } = setup(executor, 20, 10, { transitioned: () => undefined, delayed: () => undefined, laneOpened: () => void (opened += 1) });
      for (let n = 1; n <= 5; n++) add(n, slow(3));
      const first = runner.handle(job(1));
      // While run 1 executes, runs 2 and 3 run beside it on the free slots; 4 and 5 wait.
      await waitUntil(() => executor.now === 3);
      expect([1, 2, 3, 4, 5].map((n) => store.runs.get(runId(n))!.status)).toEqual(['running', 'running', 'running', 'queued', 'queued']);
      expect(opened).toBe(2);
      expect(await first).toEqual({ action: 'done' });
      await runner.settled();
      expect([1, 2, 3, 4, 5].map((n) => store.runs.get(runId(n))!.status)).toEqual(Array(5).fill('completed'));
      expect(executor.most).toBe(3);
      const started = [1, 2, 3, 4, 5].map((n) => store.runs.get(runId(n))!.startedAt!);
      expect(started).toEqual([...started].sort((a, b) => a - b));
      // No job but run 1's was needed: the others' jobs were withdrawn, and would find their runs ended.
      expect(new Set(waker.withdrawn)).toEqual(new Set([2, 3, 4, 5].map(runId)));
      for (let n = 2; n <= 5; n++) expect(await runner.handle(job(n))).toEqual({ action: 'done' });
      expect(slots.held.size).toBe(0);
    });

    it('opens none when off, none past the agent\'s free slots and at most openLanes at once', async () => {
      // Off: the job's lane goes down the line alone, one run at a time.
      const alone = new CountingExecutor();
      const off = setup(alone, 20, 0);
      for (let n = 1; n <= 3; n++) off.add(n, slow(3));
      expect(await off.runner.handle(off.job(1))).toEqual({ action: 'done' });
      expect([1, 2, 3].map((n) => off.store.runs.get(runId(n))!.status)).toEqual(Array(3).fill('completed'));
      expect(alone.most).toBe(1);

      // Another runner holds one of the agent's three slots: one lane is opened, not two.
      const held = new CountingExecutor();
      const busy = setup(held, 20, 10);
      for (let n = 1; n <= 4; n++) busy.add(n, slow(3));
      await busy.slots.acquire(AGENT, 3, runId(99));
      const busyFirst = busy.runner.handle(busy.job(1));
      await busyFirst;
      await busy.runner.settled();
      expect(held.most).toBe(2);

      const capped = new CountingExecutor();
      const one = setup(capped, 20, 1);
      for (let n = 1; n <= 6; n++) one.add(n, slow(5));
      await one.runner.handle(one.job(1));
      await one.runner.settled();
      expect(capped.most).toBe(2);
      expect([1, 2, 3, 4, 5, 6].map((n) => one.store.runs.get(runId(n))!.status)).toEqual(Array(6).fill('completed'));
    });

    it('a stopping runner opens no lane, and the lanes it opened finish their runs before settled() resolves', async () => {
      const executor = new CountingExecutor();
      const { store, runner, add, job } = setup(executor, 20, 10);
      for (let n = 1; n <= 4; n++) add(n, slow(4));
      const first = runner.handle(job(1));
      await waitUntil(() => executor.now === 4);
      runner.stop();
      await first;
      await runner.settled();
      // Each lane ends the run it began and chains no further; nothing is left running.
      expect([1, 2, 3, 4].map((n) => store.runs.get(runId(n))!.status)).toEqual(Array(4).fill('completed'));
      add(5, slow(4));
      add(6, slow(4));
      await runner.handle(job(5));
      expect([5, 6].map((n) => store.runs.get(runId(n))!.status)).toEqual(['queued', 'queued']);
    });
  });

  it('a spec that does not parse fails the queued run without starting it', async () => {
    const { store, runner, add, job } = setup();
    add(1, { name: 'broken' });
    await runner.handle(job(1));
    expect(store.runs.get(runId(1))).toMatchObject({ status: 'failed', ending: { reason: 'spec_invalid' } });
    expect(store.kinds(runId(1))).toEqual(['agent.run.failed']);
  });
});
