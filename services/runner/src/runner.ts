import type { ActivationJob, AgentSpec } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { runFact } from './run-facts';
import { SpecCache } from './spec-cache';
import type { AgentLine, AgentSlots, Executor, ExecutionResult, FactEmitter, JobWaker, LineQuery, RunEnding, RunRef, RunStore, SlotLease, StopReason } from './ports';

/** What to do with an activation job after one attempt. */
export type JobDecision = { action: 'done' } | { action: 'later'; delayMs: number };

/** Counters the runner reports; the service binds them to Prometheus. */
export interface RunnerMetrics {
  /** A run was moved to a status (`running` or an ending) by this process. */
  transitioned(status: RunRef['status'], reason: string | null): void;
  /** A job could not start yet and was delayed. */
  delayed(): void;
}

/** Constructor arguments of Runner. */
export interface RunnerOptions {
  store: RunStore;
  slots: AgentSlots;
  executor: Executor;
  emitter: FactEmitter;
  waker: JobWaker;
  log: Logger;
  /** Slot lease; renewed every third of it. */
  leaseMs: number;
  /** Jittered wait of the agent's next run in line when it cannot start yet; later runs wait longer, up to capMs. */
  backoff: { minMs: number; maxMs: number; capMs: number };
  random?: () => number;
  metrics?: RunnerMetrics;
  /** Most runs of one agent executed back to back by one job (see chain). @defaultValue 20 */
  chainMax?: number;
}

/** Queued runs read per claim: enough that one no slot holds is among them (slots ≤ 10). */
const MAX_CANDIDATES = 11;

/** What a claim saw of the agent's runs, right after it. */
interface Look {
  /** The oldest queued runs, in line order (up to MAX_CANDIDATES). */
  line: readonly string[];
  /** The line had MAX_CANDIDATES runs: there may be more behind. */
  lineFull: boolean;
  /** The runs the agent's slots held after the claim (the granted one included). */
  held: ReadonlySet<string>;
  /** The agent's runs `running` when the line was read. */
  active: ReadonlySet<string>;
}

/** A claim: the run it got a slot for (with what executing it needs), if any, and what it saw. */
interface Claim {
  granted: { run: RunRef; spec: AgentSpec; lease: SlotLease } | null;
  look: Look;
}

/** Error code of a run whose runner died (or lost its slot) mid-run. */
export const RUNNER_LOST = 'runner_lost';

/**
 * Executes activation jobs, serialized per agent across every runner process.
 * A run starts only when it is among its agent's oldest `flow.concurrency`
 * queued runs (FIFO) and a slot of the agent is free (a Redis key with a
 * lease); otherwise the job waits a little and is tried again. The ledger is
 * the truth: every status change is a conditional update, so a repeated job
 * (BullMQ is at least once) finds its run ended and does nothing.
 */
export class Runner {
  private readonly random: () => number;
  private readonly controllers = new Set<AbortController>();
  private readonly specs: SpecCache;
  /** Per agent: the slots this process's lanes hold now, of how many, and the length of the line the latest of them claimed from (its run included). */
  private readonly holding = new Map<string, { held: number; concurrency: number; line: number }>();
  private stopping = false;

  private readonly options: RunnerOptions & { chainMax: number };

  constructor(options: RunnerOptions) {
    this.options = { chainMax: 20, ...options };
    this.specs = new SpecCache((agentId, version) => options.store.specOf(agentId, version));
    this.random = options.random ?? Math.random;
  }

  /**
   * Handles one attempt of an activation job. The job is a lane of its agent
   * first: it starts the agent's oldest unclaimed queued run — its own, or one
   * ahead of it whose job sleeps — while a slot is free, and goes on down the
   * line. Start order stays queue order, and a free slot is used as soon as
   * any job of the agent comes round. What the lane's last claim saw tells
   * the job where its own run is; only when it cannot (the run is further
   * back than the claim looked) is the run read.
   */
  async handle(job: ActivationJob): Promise<JobDecision> {
    const { store, log } = this.options;
    // Every slot of the agent is held by a lane of this process: no claim could be granted,
    // so the job waits without reading the line — the lanes go on down it, withdraw the jobs
    // of the runs they start and wake the next ones when they stop (a backlog's arriving jobs
    // cost no query). Another process's lanes are not known here: its jobs look as usual.
    const mine = this.holding.get(job.agentId);
    if (mine && mine.held >= mine.concurrency) return this.later(Math.max(0, mine.line - 1));
    const lane = await this.lane(job.agentId, job.runId);
    if (lane.ran.has(job.runId)) return { action: 'done' };
    const decided = lane.look && this.decideFrom(lane.look, job.runId);
    if (decided) return decided;
    const run = await store.load(job.runId);
    if (!run) {
      log.warn({ runId: job.runId }, 'activation job for an unknown run; dropped');
      return { action: 'done' };
    }
    if (run.status === 'running') return this.recoverRunning(run);
    // Ended, cancelled while queued, or parked: the job is spent (decision 0008).
    if (run.status !== 'queued') return { action: 'done' };
    // Still queued: the agent's slots are all held (their lanes will reach it) — look again later.
    return this.later(run.ahead);
  }

  /**
   * Where the job's run is, as the lane's last claim saw it (the run was
   * queued before the job ran, so it is in the line, running or ended).
   * Held by a slot → its lane starts it; running → its runner ends it (a
   * runner that died leaves it to a later claim or the sweep, once its lease
   * lapsed: runner_lost); waiting in line → put back by its place; in
   * neither and the line was read to its end → it ended. Undefined when the
   * line was cut before it. Decision 0009.
   */
  private decideFrom(look: Look, runId: string): JobDecision | undefined {
    const place = look.line.indexOf(runId);
    if (place >= 0) return look.held.has(runId) ? { action: 'done' } : this.later(place);
    if (look.active.has(runId) || look.held.has(runId) || !look.lineFull) return { action: 'done' };
    return undefined;
  }

  /**
   * Executes the agent's queued runs in line order, one after the other, for
   * as long as it can claim one (up to `chainMax`): each run that ends here
   * saves the next one a queue round trip. Several lanes of one agent (up to
   * `flow.concurrency`) run side by side without racing, since each claim is
   * atomic (AgentSlots.claim). Then wakes the jobs of the runs still waiting.
   * Returns the ids of the runs it executed and what its last claim saw.
   */
  private async lane(agentId: string, ownRunId: string): Promise<{ ran: Set<string>; look?: Look }> {
    const ran = new Set<string>();
    let concurrency = 1;
    let waiting = false;
    let look: Look | undefined;
    // The line as the previous run's ending read it: the next claim need not read it again.
    let known: AgentLine | undefined;
    for (let n = 0; n < this.options.chainMax && !this.stopping; n++) {
      const claim = await this.claimNext(agentId, known);
      look = claim.look;
      if (!claim.granted) break;
      const { run, spec, lease } = claim.granted;
      concurrency = spec.flow.concurrency;
      // Queued runs no lane holds besides this one: they wait for a slot (their jobs may sleep).
      waiting = look.line.some((id) => id !== run.id && !look!.held.has(id));
      // Nothing else was waiting when this run was claimed: runs queued since have fresh jobs
      // of their own, so the lane need not look again (a query saved per run on a quiet agent).
      // Else the run's ending reads the line for the next claim, in the same statement.
      const goesOn = waiting && n + 1 < this.options.chainMax;
      const release = this.hold(agentId, concurrency, look.line.length);
      const executed = await this.execute(run, spec, lease, run.id !== ownRunId, goesOn ? { agentId, limit: MAX_CANDIDATES, lostAfterMs: this.options.leaseMs } : undefined).finally(release);
      if (executed.ran) ran.add(run.id);
      known = executed.line;
      if (!waiting) break;
    }
    if (waiting) await this.wakeNext(agentId, concurrency);
    return { ran, look };
  }

  /** Counts a slot of the agent as held by this process until the returned function is called. */
  private hold(agentId: string, concurrency: number, line: number): () => void {
    const mine = this.holding.get(agentId) ?? { held: 0, concurrency, line };
    mine.held += 1;
    mine.concurrency = concurrency;
    mine.line = line;
    this.holding.set(agentId, mine);
    return () => {
      mine.held -= 1;
      if (mine.held === 0) this.holding.delete(agentId);
    };
  }

  /**
   * Claims the agent's oldest queued run that no slot holds, with a free slot
   * (one Redis script: the slot names the run before the run is `running`).
   * No grant when every slot is held or nothing is queued. On the way it fails
   * the runs the ledger says are running but no slot names: their runner died.
   */
  private async claimNext(agentId: string, known?: AgentLine): Promise<Claim> {
    const { store, slots } = this.options;
    for (let given = known; ; given = undefined) {
      const { candidates, running, active } = given ?? (await store.queuedCandidates(agentId, MAX_CANDIDATES, this.options.leaseMs));
      const line = candidates.map((candidate) => candidate.id);
      const seen = { line, lineFull: line.length >= MAX_CANDIDATES, active: new Set(active) };
      if (candidates.length === 0 && running.length === 0) return { granted: null, look: { ...seen, held: new Set() } };
      const first = candidates[0];
      const concurrency = (first && (await this.specs.get(first.agentId, first.agentVersion))?.flow.concurrency) ?? 1;
      const claim = await slots.claim(agentId, concurrency, line, this.options.leaseMs);
      // Read before the claim: a run running then and named by no slot now either ended in
      // between (its slot is released only after its ending is written: the update below
      // finds it ended and does nothing) or lost its runner.
      for (const id of running) if (!claim.held.has(id)) await this.failLost(id);
      const look = { ...seen, held: claim.held };
      if (!claim.granted) return { granted: null, look };
      const { run, lease } = { run: candidates.find((candidate) => candidate.id === claim.granted!.runId)!, lease: claim.granted.lease };
      const spec = await this.specs.get(run.agentId, run.agentVersion);
      if (spec) return { granted: { run, spec, lease }, look };
      await this.end(run, ['queued'], { status: 'failed', reason: 'spec_invalid', outcome: null, error: { code: 'spec_invalid', message: 'the stored agent spec does not parse' } });
      await lease.release();
    }
  }

  /**
   * The periodic sweep. Fails the runs left `running` with no slot holder:
   * the agent's next claim does the same, but no job of the agent may come
   * by (a quiet agent, a job Redis lost or BullMQ failed after too many
   * stalls), and this keeps such a run from staying `running` for ever. Then
   * gives a job again to the runs `queued` since longer than a lease that no
   * slot holds and that have no live job: a run claimed by a lane that died
   * before starting it, whose own job had already ended (its lane saw the
   * run held, decision 0009), would otherwise wait for the next job of its
   * agent. Returns how many runs it failed and how many it gave a job.
   */
  async sweep(): Promise<{ failed: number; revived: number }> {
    const { store, slots, waker, leaseMs } = this.options;
    const holders = new Map<string, Set<string>>();
    const held = async (agentId: string, runId: string) => {
      if (!holders.has(agentId)) holders.set(agentId, await slots.holders(agentId));
      return holders.get(agentId)!.has(runId);
    };
    let failed = 0;
    for (const { id, agentId } of await store.runningSince(leaseMs)) {
      if (!(await held(agentId, id)) && (await this.failLost(id))) failed += 1;
    }
    const orphans: ActivationJob[] = [];
    for (const run of await store.queuedSince(leaseMs)) {
      if (!(await held(run.agentId, run.id))) orphans.push({ schemaVersion: 1, runId: run.id, workspaceId: run.workspaceId, agentId: run.agentId });
    }
    const revived = orphans.length > 0 ? await waker.revive(orphans) : 0;
    if (revived > 0) this.options.log.warn({ revived }, 'queued runs without a job were given one again');
    return { failed, revived };
  }

  /** Starts no further chained run (the process is stopping). */
  stop(): void {
    this.stopping = true;
  }

  /** Aborts every run in progress (the process is stopping). */
  abortAll(reason: string): void {
    for (const controller of this.controllers) controller.abort(reason);
  }

  /**
   * A job whose run it had to read (further back than its lane's claim
   * looked) found it `running`. While some runner holds the run's slot it is
   * alive: look again later. Else the run is lost: failed visibly, never
   * executed a second time.
   */
  private async recoverRunning(run: RunRef): Promise<JobDecision> {
    if ((await this.options.slots.holders(run.agentId)).has(run.id)) return { action: 'later', delayMs: this.options.leaseMs };
    await this.failLost(run.id);
    return { action: 'done' };
  }

  /**
   * The jittered wait of a job that cannot start. It grows with the runs
   * ahead (up to `capMs`): a run that ends wakes the agent's next ones, so
   * far-back jobs need not poll, and fewer polls leave the runners and the
   * database to the runs that can start.
   */
  private later(ahead: number): JobDecision {
    const { minMs, maxMs, capMs } = this.options.backoff;
    this.options.metrics?.delayed();
    const jittered = minMs + this.random() * (maxMs - minMs);
    return { action: 'later', delayMs: Math.round(Math.min(jittered * (1 + ahead), capMs)) };
  }

  /**
   * Runs it; `ran` false when it was no longer queued (another runner took it
   * first). A run of another job's (`othersJob`) has that job withdrawn once
   * it is `running`: the job would only find it taken. With `lookAfter`, the
   * run's ending also reads that line (`line`), for the lane's next claim.
   */
  private async execute(run: RunRef, spec: AgentSpec, lease: SlotLease, othersJob: boolean, lookAfter?: LineQuery): Promise<{ ran: boolean; line?: AgentLine }> {
    const { store, executor, log } = this.options;
    const started = await store.markRunning(run.id);
    if (!started) {
      await lease.release();
      return { ran: false };
    }
    log.info({ runId: run.id, agentId: run.agentId }, 'run started');
    // Not awaited before the executor starts: its first Redis command (the mailbox drain) goes
    // out in the same pipelined write. Awaited before the ending, so `started` precedes it.
    const announced = this.announce(started, 'running', null);
    // Sent with the fact (same tick, one pipelined write); a job already picked up stays, harmlessly.
    if (othersJob) this.options.waker.withdraw(run.id).catch((error: unknown) => log.debug({ err: error, runId: run.id }, 'job not withdrawn'));
    const controller = new AbortController();
    this.controllers.add(controller);
    let lost = false;
    const renewal = setInterval(() => {
      lease.renew().then(
        (held) => {
          if (!held && !lost) {
            lost = true;
            controller.abort(RUNNER_LOST);
          }
        },
        (error: unknown) => log.warn({ err: error, runId: run.id }, 'slot renewal failed'),
      );
    }, Math.max(50, Math.floor(this.options.leaseMs / 3)));
    let result: ExecutionResult;
    try {
      // The first stop check is the one read as the run started; later ones ask the ledger.
      const { stop, ...startedRun } = started;
      let firstCheck: StopReason | null | undefined = stop;
      const shouldStop = async () => {
        if (firstCheck === undefined) return store.stopReason(run.id);
        const reason = firstCheck;
        firstCheck = undefined;
        return reason;
      };
      result = await executor.execute({ ...startedRun, spec }, { signal: controller.signal, shouldStop });
    } catch (error) {
      log.error({ err: error, runId: run.id }, 'executor threw');
      result = { status: 'failed', error: { code: 'executor_error', message: error instanceof Error ? error.message : String(error) } };
    } finally {
      clearInterval(renewal);
      this.controllers.delete(controller);
    }
    await announced;
    // Ledger first, then the slot: another runner never sees the slot free while the run is
    // `running`. The fact and the release are sent together (one Redis round trip, pipelined).
    const line = await this.end(started, ['running'], toEnding(result, lost || controller.signal.aborted), () => lease.release(), lookAfter);
    return { ran: true, line };
  }

  private async wakeNext(agentId: string, concurrency: number): Promise<void> {
    try {
      await this.options.waker.wake(await this.options.store.nextQueued(agentId, concurrency));
    } catch (error) {
      // Only a shortcut: the waiting jobs are tried again after their backoff anyway.
      this.options.log.warn({ err: error, agentId }, 'could not wake the next runs');
    }
  }

  private async failLost(runId: string): Promise<boolean> {
    const ended = await this.options.store.finish(runId, ['running'], {
      status: 'failed',
      reason: RUNNER_LOST,
      outcome: null,
      error: { code: RUNNER_LOST, message: 'the runner executing this run stopped (or lost its slot) before it ended' },
    });
    if (ended) {
      this.options.log.warn({ runId }, 'run lost with its runner; failed');
      await this.announce(ended, 'failed', RUNNER_LOST);
    }
    return ended !== null;
  }

  /**
   * Writes the ending, then records its fact alongside `after` (what may
   * happen once the ledger has it). With `look`, returns that line as the
   * ending's statement read it.
   */
  private async end(run: RunRef, from: readonly RunRef['status'][], ending: RunEnding, after?: () => Promise<unknown>, look?: LineQuery): Promise<AgentLine | undefined> {
    const { store } = this.options;
    const { ended, line } = look ? await store.finishAndLook(run.id, from, ending, look) : { ended: await store.finish(run.id, from, ending), line: undefined };
    if (!ended) this.options.log.warn({ runId: run.id, status: ending.status }, 'run was ended by someone else; outcome not recorded');
    await Promise.all([ended ? this.announce(ended, ending.status, ending.reason) : undefined, after?.()]);
    return line;
  }

  private async announce(run: RunRef, status: RunRef['status'], reason: string | null): Promise<void> {
    this.options.metrics?.transitioned(status, reason);
    try {
      await this.options.emitter.accept([runFact(run, status, reason)]);
    } catch (error) {
      // As in 0007: the ledger row is the truth; a lost fact is logged, not retried here.
      this.options.log.error({ err: error, runId: run.id, status }, 'could not record run fact');
    }
  }
}

/** The ledger ending of an executor's result; an aborted run (slot lost, process stopping) is runner_lost. */
function toEnding(result: ExecutionResult, lost: boolean): RunEnding {
  const { transcript } = result;
  if (lost) {
    return { status: 'failed', reason: RUNNER_LOST, outcome: result.outcome ?? null, error: { code: RUNNER_LOST, message: 'the run lost its agent slot' }, transcript };
  }
  switch (result.status) {
    case 'completed':
      return { status: 'completed', reason: null, outcome: result.outcome, error: null, transcript };
    case 'cancelled':
      return { status: 'cancelled', reason: result.reason, outcome: result.outcome, error: null, transcript };
    case 'failed':
      return { status: 'failed', reason: result.error.code, outcome: result.outcome ?? null, error: result.error, transcript };
  }
}
