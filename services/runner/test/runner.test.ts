import { createLogger } from '@switchyard/logging';
import { FakeRunQueueStore, waitFor } from '@switchyard/testing';
import { agentLane } from '@switchyard/runs';
import { Runner, type RunnerMetrics } from '../src/runner';
import type { ApprovalParking, RunStartGate, ExecutableRun, ExecutionContext, ExecutionResult, Executor, RunQueue, RunReads, RunRef } from '../src/ports';

const OUTCOME = { summary: 'done', turns: 1, toolCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
const spec = (concurrency = 1) => ({
  name: 'a',
  instructions: 'x',
  model: { provider: 'scripted', name: 'm' },
  script: [{ say: 'one' }],
  triggers: [{ kind: 'x.y' }],
  flow: { concurrency },
});

/**
 * Why this exists: the scheduling tests must decide when each run ends. Each
 * execution waits until the test releases it (or its signal aborts), and
 * the executor records what ran, in which order, and how many at once.
 */
class GateExecutor implements Executor {
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  readonly abandonedRuns: string[] = [];
  active = 0;
  deepest = 0;
  private readonly gates = new Map<string, () => void>();

  async execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
    this.started.push(run.id);
    this.active += 1;
    this.deepest = Math.max(this.deepest, this.active);
    try {
      const reason = await context.shouldStop();
      if (reason) return { status: 'cancelled', reason, outcome: OUTCOME };
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) return resolve();
        this.gates.set(run.id, resolve);
        context.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      if (context.signal.aborted) this.aborted.push(run.id);
      return { status: 'completed', outcome: OUTCOME };
    } finally {
      this.active -= 1;
      this.gates.delete(run.id);
    }
  }

  async abandoned(run: RunRef): Promise<void> {
    this.abandonedRuns.push(run.id);
  }

  /** Lets the executing runs end (all, or those named). */
  release(...ids: string[]): void {
    for (const [id, resolve] of this.gates) if (ids.length === 0 || ids.includes(id)) resolve();
  }

  executing(): string[] {
    return [...this.gates.keys()];
  }

  /** Resolves once `count` runs wait at their gate. */
  async executingAtLeast(count: number): Promise<void> {
    await waitFor(async () => this.gates.size >= count || undefined, { timeoutMs: 2000, intervalMs: 1, what: `${count} runs executing` });
  }
}

function setup(options: { concurrency?: number; leaseMs?: number; specOf?: () => unknown; executor?: Executor; parks?: boolean; gate?: RunStartGate } = {}) {
  const store = new FakeRunQueueStore();
  const executor = options.executor ?? new GateExecutor();
  const transitions: string[] = [];
  const metrics: RunnerMetrics = { transitioned: (status, reason) => transitions.push(`${status}:${reason ?? ''}`) };
  const reads: RunReads = { specOf: async () => (options.specOf ? options.specOf() : spec()), stopReason: async () => null, tryOf: async () => null };
  const leaseMs = options.leaseMs ?? 60_000;
  const queue: RunQueue = store.as('me', leaseMs);
  // Claims made through the queue (a park's own claim is the park's, not counted here).
  const claims: string[] = [];
  const counted: RunQueue = Object.assign(Object.create(queue) as RunQueue, {
    claim: (runId: string, limit: number) => (claims.push(runId), queue.claim(runId, limit)),
  });
  const parking: ApprovalParking = {
    park: async (run, _requests, _timeoutMs, limit) => {
      const parked = await queue.park(run.id, limit);
      return { outcome: { type: 'parked' }, claim: parked };
    },
  };
  const runner = new Runner({
    queue: counted,
    reads,
    executor,
    log: createLogger({ service: 'test', level: 'silent' }),
    concurrency: options.concurrency ?? 10,
    leaseMs,
    metrics,
    ...(options.parks ? { parking } : {}),
    ...(options.gate ? { gate: options.gate, sweepQueuedAfterMs: 0 } : {}),
  });
  const job = (runId: string) => ({ schemaVersion: 1 as const, runId, workspaceId: 'fake-workspace', agentId: store.runs.get(runId)!.agentId });
  const statuses = (ids: string[]) => ids.map((id) => store.runs.get(id)!.status);
  return { store, executor, runner, job, statuses, transitions, claims };
}

describe('Runner (fake run queue)', () => {
  let cleanup: Runner | undefined;
  afterEach(() => cleanup?.close());

  it('while run starts are paused (the dashboard), no job that waited for a slot, ending or sweep starts a run; after the resume the sweep does', async () => {
    let paused = false;
    let reads = 0;
    const { store, executor: gate, runner, job, statuses, claims } = setup({ concurrency: 1, gate: { paused: async () => (reads++, paused) } });
    cleanup = runner;
    const executor = gate as GateExecutor;
    // Lanes in name order (the fair claim's order within a workspace): the first job's claim starts `first`.
    const lane = store.addLane(1, agentLane('a-agent'));
    const other = store.addLane(1, agentLane('b-agent'));
    const [first, second, third] = [store.enqueue(lane), store.enqueue(lane), store.enqueue(lane)];
    const elsewhere = store.enqueue(other);
    // BullMQ hands a job out only while the queue is not paused: its claim, made at once, reads no gate.
    await runner.handle(job(first!));
    await executor.executingAtLeast(1);
    expect(reads).toBe(0);
    // The process is full: this job waits for a slot, and starts are paused meanwhile.
    const waiting = runner.handle(job(elsewhere));
    paused = true;
    // The ending of the run in progress is written, and claims nothing after it; the waiting job claims nothing either.
    executor.release();
    await waiting;
    await runner.settled();
    expect(reads).toBe(2);
    expect(claims).toEqual([first]);
    expect(statuses([first!, second!, third!, elsewhere])).toEqual(['completed', 'queued', 'queued', 'queued']);
    expect(await runner.sweep()).toEqual({ started: 0, failed: 0 });
    expect(statuses([second!, third!, elsewhere])).toEqual(['queued', 'queued', 'queued']);
    paused = false;
    expect((await runner.sweep()).started).toBe(1);
    // The others start as runs end (an ending claims its lane's next) and by the sweep (the other lane's).
    await waitFor(
      async () => {
        executor.release();
        if (executor.active === 0) await runner.sweep();
        return statuses([first!, second!, third!, elsewhere]).every((status) => status === 'completed') || undefined;
      },
      { timeoutMs: 2000, intervalMs: 1, what: 'every run completed' },
    );
    await runner.settled();
    expect(statuses([first!, second!, third!, elsewhere])).toEqual(['completed', 'completed', 'completed', 'completed']);
  });

  it('a job executes its run and ends it completed', async () => {
    const { store, executor, runner, job, statuses, transitions } = setup();
    cleanup = runner;
    const lane = store.addLane(1);
    const run = store.enqueue(lane);
    await runner.handle(job(run));
    await (executor as GateExecutor).executingAtLeast(1);
    (executor as GateExecutor).release();
    await runner.settled();
    expect(statuses([run])).toEqual(['completed']);
    expect(transitions).toEqual(['running:', 'completed:']);
  });

  it('one job runs a concurrency-1 lane to its end, one run at a time, in queue order', async () => {
    const { store, executor: gate, runner, job, statuses } = setup();
    cleanup = runner;
    const executor = gate as GateExecutor;
    const lane = store.addLane(1);
    const runs = [1, 2, 3, 4, 5].map(() => store.enqueue(lane));
    await runner.handle(job(runs[4]!));
    for (let i = 0; i < runs.length; i++) {
      await waitFor(async () => executor.executing().length === 1 || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'the next run executing' });
      executor.release();
      await waitFor(async () => executor.started.length > i + 1 || i === runs.length - 1 || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'next started' });
    }
    await runner.settled();
    expect(executor.started).toEqual(runs);
    expect(executor.deepest).toBe(1);
    expect(statuses(runs)).toEqual(runs.map(() => 'completed'));
  });

  it('a burst to a concurrency-3 lane executes 3 side by side from one claim, never 4', async () => {
    const { store, executor, runner, job, statuses } = setup();
    cleanup = runner;
    const gate = executor as GateExecutor;
    const lane = store.addLane(3);
    const runs = Array.from({ length: 7 }, () => store.enqueue(lane));
    await runner.handle(job(runs[0]!));
    await waitFor(async () => gate.active === 3 || undefined, { timeoutMs: 2000, intervalMs: 1, what: '3 executing' });
    expect(statuses(runs).filter((status) => status === 'running')).toHaveLength(3);
    while (gate.started.length < runs.length || gate.active > 0) {
      gate.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await runner.settled();
    expect(gate.deepest).toBe(3);
    expect(gate.started).toEqual(runs);
    expect(statuses(runs)).toEqual(runs.map(() => 'completed'));
  });

  it('the process never executes more than its RUNNER_CONCURRENCY; a waiting job claims once a slot frees', async () => {
    const { store, executor, runner, job, statuses } = setup({ concurrency: 2 });
    cleanup = runner;
    const gate = executor as GateExecutor;
    // A claim visits lanes in name order (the fair claim across lanes): a's before b's.
    const a = store.addLane(3, 'agent:a');
    const b = store.addLane(3, 'agent:b');
    const runsA = [store.enqueue(a), store.enqueue(a)];
    const runB = store.enqueue(b);
    await runner.handle(job(runsA[0]!));
    await gate.executingAtLeast(2);
    const waiting = runner.handle(job(runB));
    await new Promise((resolve) => setImmediate(resolve));
    expect(statuses([runB])).toEqual(['queued']);
    // The freed slot starts b's run: the ending's claim takes it (the queue's fair claim), and the waiting job finds it started once a slot frees again.
    gate.release(runsA[0]!);
    await waitFor(async () => gate.started.includes(runB) || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'lane b claimed' });
    expect(gate.deepest).toBe(2);
    gate.release();
    await waiting;
    await waitFor(async () => gate.active === 0 || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'all released' });
    await runner.settled();
    expect(statuses([...runsA, runB])).toEqual(['completed', 'completed', 'completed']);
  });

  it('a run that parks gives its slot to its park: a concurrency-1 process starts the next run from the park, and claims nothing after it', async () => {
    const parkFirst: Executor = {
      execute: async (run, context) => {
        const outcome = await context.park!([{ kind: 'tool', toolCallId: 'c1', tool: null, argumentsPreview: '{}', truncated: false, reason: null }], 60_000);
        return outcome.type === 'parked' ? { status: 'parked' } : { status: 'completed', outcome: OUTCOME };
      },
    };
    const gate = new GateExecutor();
    let first = true;
    const executor: Executor = { execute: (run, context) => (first ? ((first = false), parkFirst.execute(run, context)) : gate.execute(run, context)) };
    const { store, runner, job, statuses, transitions, claims } = setup({ concurrency: 1, executor, parks: true });
    cleanup = runner;
    const lane = store.addLane(1);
    const [parked, next] = [store.enqueue(lane), store.enqueue(lane)];
    await runner.handle(job(parked!));
    await gate.executingAtLeast(1);
    expect(statuses([parked!, next!])).toEqual(['awaiting_approval', 'running']);
    expect(claims).toEqual([parked]);
    gate.release();
    await runner.settled();
    expect(statuses([next!])).toEqual(['completed']);
    expect(transitions).toEqual(['running:', 'awaiting_approval:', 'running:', 'completed:']);
  });

  it('a claim continues the run of a lapsed lease of a dead runner ahead of the runs queued after it (decision 0051)', async () => {
    const { store, executor, runner, job, statuses } = setup();
    cleanup = runner;
    const gate = executor as GateExecutor;
    const lane = store.addLane(1);
    const [lapsed, next] = [store.enqueue(lane), store.enqueue(lane)];
    await store.as('dead', 1).claim(lapsed!, 1);
    await waitFor(async () => (await store.as('x', 1).lanesToSweep(60_000)).includes(lane) || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'lease lapsed' });
    await runner.handle(job(next!));
    await gate.executingAtLeast(1);
    expect(statuses([lapsed!, next!])).toEqual(['running', 'queued']);
    expect(gate.abandonedRuns).toEqual([]);
    expect(gate.started).toEqual([lapsed]);
    gate.release(lapsed!);
    // Its ending claims the lane's next run.
    await waitFor(async () => gate.executing().includes(next!) || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'the next run started by the ending' });
    gate.release();
    await runner.settled();
    expect(statuses([lapsed!, next!])).toEqual(['completed', 'completed']);
  });

  it('a claim fails the lapsed lease of a dead runner inside a write call runner_lost, hands it to the executor once, and takes its slot', async () => {
    const { store, executor, runner, job, statuses, transitions } = setup();
    cleanup = runner;
    const gate = executor as GateExecutor;
    const lane = store.addLane(1);
    const [lost, next] = [store.enqueue(lane), store.enqueue(lane)];
    await store.as('dead', 1).claim(lost!, 1);
    store.runs.get(lost!)!.inWriteCall = true;
    await waitFor(async () => (await store.as('x', 1).lanesToSweep(60_000)).includes(lane) || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'lease lapsed' });
    await runner.handle(job(next!));
    await gate.executingAtLeast(1);
    expect(statuses([lost!])).toEqual(['failed']);
    expect(store.runs.get(lost!)!.reason).toBe('runner_lost');
    expect(gate.abandonedRuns).toEqual([lost]);
    expect(gate.started).toEqual([next]);
    expect(transitions).toContain('failed:runner_lost');
    gate.release();
    await runner.settled();
  });

  it('a run whose lease renewal fails is aborted; its ending does not apply, and the lane goes on', async () => {
    const { store, executor, runner, job } = setup({ leaseMs: 150 });
    cleanup = runner;
    const gate = executor as GateExecutor;
    const lane = store.addLane(1);
    const [taken, next] = [store.enqueue(lane), store.enqueue(lane)];
    await runner.handle(job(taken!));
    // Another runner's claim failed it (its lease had lapsed, as far as the queue knew).
    Object.assign(store.runs.get(taken!)!, { status: 'failed', reason: 'runner_lost', leaseOwner: null });
    await waitFor(async () => gate.aborted.includes(taken!) || undefined, { timeoutMs: 2000, intervalMs: 5, what: 'the run aborted' });
    await waitFor(async () => gate.started.includes(next!) || undefined, { timeoutMs: 2000, intervalMs: 1, what: 'the next run started by the ending' });
    expect(store.runs.get(taken!)!.reason).toBe('runner_lost');
    gate.release();
    await runner.settled();
    expect(store.runs.get(next!)!.status).toBe('completed');
  });

  it('a stop request read with the claim cancels the run at its first step', async () => {
    const { store, runner, job } = setup();
    cleanup = runner;
    const lane = store.addLane(1);
    const run = store.enqueue(lane, { stop: 'stopped' });
    await runner.handle(job(run));
    await runner.settled();
    expect(store.runs.get(run)).toMatchObject({ status: 'cancelled', reason: 'stopped' });
  });

  it('a spec that does not parse fails the run spec_invalid; an executor that throws fails it executor_error', async () => {
    const bad = setup({ specOf: () => ({ nonsense: true }) });
    const lane = bad.store.addLane(1);
    const run = bad.store.enqueue(lane);
    await bad.runner.handle(bad.job(run));
    await bad.runner.settled();
    bad.runner.close();
    expect(bad.store.runs.get(run)).toMatchObject({ status: 'failed', reason: 'spec_invalid' });
    const throwing = setup({ executor: { execute: async () => Promise.reject(new Error('boom')) } });
    cleanup = throwing.runner;
    const other = throwing.store.enqueue(throwing.store.addLane(1));
    await throwing.runner.handle(throwing.job(other));
    await throwing.runner.settled();
    expect(throwing.store.runs.get(other)).toMatchObject({ status: 'failed', reason: 'executor_error' });
  });

  it('the sweep claims a lane whose queued run no job woke', async () => {
    const { store, executor, runner } = setup();
    cleanup = runner;
    const run = store.enqueue(store.addLane(1));
    expect(await runner.sweep()).toEqual({ started: 0, failed: 0 });
    store.runs.get(run)!.queuedAt -= 10_000;
    expect(await runner.sweep()).toEqual({ started: 1, failed: 0 });
    await (executor as GateExecutor).executingAtLeast(1);
    (executor as GateExecutor).release();
    await runner.settled();
    expect(store.runs.get(run)!.status).toBe('completed');
  });

  it('once stopped it claims nothing; aborted runs end runner_lost', async () => {
    const { store, executor, runner, job, statuses } = setup();
    cleanup = runner;
    const gate = executor as GateExecutor;
    const lane = store.addLane(1);
    const [running, queued] = [store.enqueue(lane), store.enqueue(lane)];
    await runner.handle(job(running!));
    runner.stop();
    runner.abortAll('stopping');
    await runner.settled();
    expect(store.runs.get(running!)).toMatchObject({ status: 'failed', reason: 'runner_lost' });
    await runner.handle(job(queued!));
    expect(statuses([queued!])).toEqual(['queued']);
    expect(gate.started).toEqual([running]);
  });
});
