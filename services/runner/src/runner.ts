import type { ActivationJob, AgentSpec } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { executeUnderLease, RUNNER_LOST } from './run-execution';
import { SpecCache } from './spec-cache';
import type { AgentLine, AgentSlots, Executor, JobWaker, RunEnding, RunRef, RunStore, SlotLease, StartedRun } from './ports';

/** What to do with an activation job after one attempt. */
export type JobDecision = { action: 'done' } | { action: 'later'; delayMs: number };

/** Counters the runner reports; the service binds them to Prometheus. */
export interface RunnerMetrics {
  /** A run was moved to a status (`running` or an ending) by this process. */
  transitioned(status: RunRef['status'], reason: string | null): void;
  /** A job could not start yet and was delayed. */
  delayed(): void;
  /** A lane was opened beside the jobs' for a waiting run (openLanes). */
  laneOpened(): void;
}

/** Constructor arguments of Runner. */
export interface RunnerOptions {
  store: RunStore;
  slots: AgentSlots;
  executor: Executor;
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
  /**
   * Most lanes this process opens at once beside its jobs' for runs that wait
   * behind a claimed one while their agent has free slots (openLanes); 0 opens
   * none. @defaultValue 0
   */
  openLanes?: number;
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

/** A run a lane moved to `running`: what executing it needs and its slot. */
interface Begun {
  run: StartedRun;
  spec: AgentSpec;
  lease: SlotLease;
}

/** Queued runs in the line that no slot holds, besides `runId`: they wait for a slot. */
function othersWaiting(look: Look, runId?: string): boolean {
  return look.line.some((id) => id !== runId && !look.held.has(id));
}

/** The runs the agent's other slots hold: their lanes are starting them, so a start passes over them. */
function heldBesides(held: ReadonlySet<string>, runId: string): string[] {
  return [...held].filter((id) => id !== runId);
}

/** What a line read tells of the agent's runs, before the slots are asked who holds them. */
function seenOf(line: AgentLine): Omit<Look, 'held' | 'active'> & { active: Set<string> } {
  const ids = line.candidates.map((candidate) => candidate.id);
  return { line: ids, lineFull: ids.length >= MAX_CANDIDATES, active: new Set(line.active) };
}

/** A claim: the run it got a slot for (with what executing it needs), if any, and what it saw. */
interface Claim {
  granted: { run: RunRef; spec: AgentSpec; lease: SlotLease } | null;
  look: Look;
}


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
  /** The lanes opened beside the jobs' (openLanes), until they end. */
  private readonly opened = new Set<Promise<void>>();
  /** Per agent: opened lanes that have not claimed yet (a later claim counts their slots as taken). */
  private readonly opening = new Map<string, number>();
  private stopping = false;

  private readonly options: RunnerOptions & { chainMax: number; openLanes: number };

  constructor(options: RunnerOptions) {
    this.options = { chainMax: 20, openLanes: 0, ...options };
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
   * atomic (AgentSlots.claim). A run that ends while others wait hands its
   * slot to the next in line (handOff): one statement ends it and starts the
   * next, one Redis write moves the slot. Then wakes the jobs of the runs
   * still waiting. Returns the ids of the runs it executed and what it last saw.
   */
  private async lane(agentId: string, ownRunId: string | null, claimed?: () => void): Promise<{ ran: Set<string>; look?: Look }> {
    const ran = new Set<string>();
    let concurrency = 1;
    let waiting = false;
    let look: Look | undefined;
    // The line as the previous run's ending read it: the next claim need not read it again.
    let known: AgentLine | undefined;
    // The run the previous run's ending started, holding the slot it handed over.
    let next: Begun | null = null;
    // A run handed over is executed even when the process is stopping: it is `running` already.
    for (let n = 0; n < this.options.chainMax && (next || !this.stopping); n++) {
      let current = next;
      next = null;
      if (!current) {
        const claim = await this.claimNext(agentId, known);
        claimed?.();
        known = undefined;
        look = claim.look;
        if (!claim.granted) break;
        // Queued runs no lane holds besides this one: they wait for a slot (their jobs may sleep).
        waiting = othersWaiting(look, claim.granted.run.id);
        if (waiting && ownRunId !== null) this.openLanes(agentId, look, claim.granted.spec.flow.concurrency);
        current = await this.begin(claim.granted, look.held, ownRunId);
        if (!current) {
          if (!waiting) break;
          continue;
        }
      }
      concurrency = current.spec.flow.concurrency;
      // Nothing else was waiting when this run was claimed: runs queued since have fresh jobs
      // of their own, so the lane need not look again (a query saved per run on a quiet agent).
      const goesOn = waiting && n + 1 < this.options.chainMax && !this.stopping;
      const release = this.hold(agentId, concurrency, look!.line.length);
      const ending = await this.execute(current).finally(release);
      ran.add(current.run.id);
      if (!goesOn) {
        // Ledger first, then the slot: another runner never sees the slot free while the run is `running`.
        const { lease } = current;
        await this.end(current.run, ['running'], ending, () => lease.release());
        if (!waiting) break;
        continue;
      }
      const handed = await this.handOff(current, ending, look!.held, ownRunId);
      ({ look, next } = handed);
      known = handed.line;
      waiting = othersWaiting(look, next?.run.id);
      if (!next && !waiting) break;
    }
    if (waiting) await this.wakeNext(agentId, concurrency);
    return { ran, look };
  }

  /**
   * Opens lanes for the runs waiting behind a claimed one while their agent
   * has free slots: a burst of facts queues several runs at once, and their
   * jobs reach this process one by one (BullMQ fetches a job per round trip),
   * so without them the burst's runs would start one after another. Each
   * opened lane claims as a job's lane does (the oldest run no slot holds,
   * FIFO) and goes down the line; the jobs of the runs it starts are
   * withdrawn, and a job that comes round anyway finds its run held or ended.
   * A process that dies with them leaves their runs to the lease, like any
   * lane's. Only a job's lane opens lanes, at most `openLanes` at once.
   */
  private openLanes(agentId: string, look: Look, concurrency: number): void {
    const { log, openLanes } = this.options;
    const waitingRuns = look.line.filter((id) => !look.held.has(id)).length;
    const free = concurrency - look.held.size - (this.opening.get(agentId) ?? 0);
    const count = Math.min(waitingRuns, free, openLanes - this.opened.size);
    for (let i = 0; i < count && !this.stopping; i++) {
      this.opening.set(agentId, (this.opening.get(agentId) ?? 0) + 1);
      this.options.metrics?.laneOpened();
      let counted = true;
      const claimed = () => {
        if (!counted) return;
        counted = false;
        const left = this.opening.get(agentId)! - 1;
        if (left > 0) this.opening.set(agentId, left);
        else this.opening.delete(agentId);
      };
      const lane: Promise<void> = this.lane(agentId, null, claimed)
        .then(() => undefined, (error: unknown) => log.warn({ err: error, agentId }, 'opened lane failed; its run is left to its lease'))
        .finally(() => {
          claimed();
          this.opened.delete(lane);
        });
      this.opened.add(lane);
    }
  }

  /** Resolves when the lanes opened beside the jobs' have ended (the process is stopping). */
  async settled(): Promise<void> {
    while (this.opened.size > 0) await Promise.allSettled([...this.opened]);
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
      const agentLine = given ?? (await store.queuedCandidates(agentId, MAX_CANDIDATES, this.options.leaseMs));
      const { candidates, running } = agentLine;
      const seen = seenOf(agentLine);
      const { line } = seen;
      if (candidates.length === 0 && running.length === 0) return { granted: null, look: { ...seen, held: new Set() } };
      const first = candidates[0];
      const concurrency = (first && (await this.specs.get(first.agentId, first.agentVersion))?.flow.concurrency) ?? 1;
      const claim = await slots.claim(agentId, concurrency, line, this.options.leaseMs);
      // Read before the claim: a run running then and named by no slot now either ended in
      // between (its slot is released only after its ending is written: the update below
      // finds it ended and does nothing) or lost its runner.
      await this.failUnheld(running, claim.held);
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
   * Moves a claimed run to `running` — or, when another lane's hand-off
   * started it since the claim (a hand-off takes the head of the line in
   * SQL before its slot names it), the next run in line in its place, the
   * claimed slot passed to it: the lane executes a run either way instead of
   * releasing its slot and claiming again (at 200 facts/s that race left half
   * an agent's slots idle). Null when nothing was started, its slot released.
   */
  private async begin(granted: NonNullable<Claim['granted']>, held: ReadonlySet<string>, ownRunId: string | null): Promise<Begun | null> {
    const { run, spec, lease } = granted;
    const skip = heldBesides(held, run.id);
    const started = await this.options.store.markRunning(run.id, { agentId: run.agentId, skip, version: run.agentVersion });
    if (!started) {
      await lease.release();
      return null;
    }
    if (started.id === run.id) return this.began(started, spec, lease, ownRunId);
    const passed = await lease.pass(started.id);
    if (!passed) {
      // The claimed slot lapsed: the started run has none; failed visibly, as a hand-off's would be.
      this.counted('running', null);
      await this.failLost(started.id);
      return null;
    }
    // Same version as the claimed run: same spec.
    return this.began(started, spec, passed, ownRunId);
  }

  /**
   * A run this lane just moved to `running` (its `started` fact was written
   * with the change). A run of another job's has that job withdrawn: the job
   * would only find it taken (a job already picked up stays, harmlessly).
   */
  private began(run: StartedRun, spec: AgentSpec, lease: SlotLease, ownRunId: string | null): Begun {
    const { log } = this.options;
    log.info({ runId: run.id, agentId: run.agentId }, 'run started');
    this.counted('running', null);
    if (run.id !== ownRunId) this.options.waker.withdraw(run.id).catch((error: unknown) => log.debug({ err: error, runId: run.id }, 'job not withdrawn'));
    return { run, spec, lease };
  }

  /** Executes a started run under its slot's lease; returns the ending to write, once its `started` fact is out. */
  private async execute(current: Begun): Promise<RunEnding> {
    const { store, executor, log, leaseMs } = this.options;
    return executeUnderLease({ store, executor, log, leaseMs, controllers: this.controllers }, current.run, current.spec, current.lease);
  }

  /**
   * Ends a run and goes on with the agent's next without a claim: one
   * statement writes the ending and starts the oldest queued run that no
   * other slot holds (finishAndStartNext) — the facts of both changes are
   * written with them — then one Redis write moves the run's slot to the
   * started run (handOver).
   * The slot is never free in between, so no other lane can start a run of
   * the agent meanwhile, and a runner that dies in between leaves the started
   * run `running` with no slot naming it: failed runner_lost once the slot's
   * lease lapses, like any run of a dead runner. When nothing was started
   * (nothing queued, the next run is being started by someone else or is of
   * another version) the slot is released and the lane claims as usual.
   */
  private async handOff(current: Begun, ending: RunEnding, held: ReadonlySet<string>, ownRunId: string | null): Promise<{ next: Begun | null; look: Look; line: AgentLine }> {
    const { store, slots, leaseMs, log } = this.options;
    const { run, spec, lease } = current;
    const skip = heldBesides(held, run.id);
    const { ended, started, line } = await store.finishAndStartNext(run.id, ['running'], ending, {
      agentId: run.agentId,
      limit: MAX_CANDIDATES,
      lostAfterMs: leaseMs,
      skip,
      version: run.agentVersion,
    });
    if (!ended) log.warn({ runId: run.id, status: ending.status }, 'run was ended by someone else; outcome not recorded');
    const seen = seenOf(line);
    if (ended) this.counted(ending.status, ending.reason);
    if (!started) {
      await lease.release();
      return { next: null, line, look: { ...seen, held: new Set(skip) } };
    }
    const claim = await slots.handOver(run.agentId, spec.flow.concurrency, run.id, started.id, leaseMs);
    seen.active.add(started.id);
    const look = { ...seen, held: claim.held };
    await this.failUnheld(line.running, claim.held);
    if (!claim.granted) {
      // The run's slot lapsed and none was free: the started run never executes; failed visibly.
      this.counted('running', null);
      await this.failLost(started.id);
      return { next: null, line, look };
    }
    // Same version as the run that ended: same spec.
    return { next: this.began(started, spec, claim.granted.lease, ownRunId), line, look };
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
      this.counted('failed', RUNNER_LOST);
      await this.options.executor.abandoned?.(ended).catch((error: unknown) => this.options.log.warn({ err: error, runId }, 'lost run not cleaned up'));
    }
    return ended !== null;
  }

  /** Writes the ending (its fact goes with it: the runs trigger), then does `after` (what may happen once the ledger has it). */
  private async end(run: RunRef, from: readonly RunRef['status'][], ending: RunEnding, after?: () => Promise<unknown>): Promise<void> {
    const ended = await this.options.store.finish(run.id, from, ending);
    if (ended) this.counted(ending.status, ending.reason);
    else this.options.log.warn({ runId: run.id, status: ending.status }, 'run was ended by someone else; outcome not recorded');
    await after?.();
  }

  /** Fails the runs the ledger said were running (since longer than a lease) that no slot names: their runner died. */
  private async failUnheld(running: readonly string[], held: ReadonlySet<string>): Promise<void> {
    for (const id of running) if (!held.has(id)) await this.failLost(id);
  }

  /** Counts a status change this process made; its fact was written with it (the runs trigger). */
  private counted(status: RunRef['status'], reason: string | null): void {
    this.options.metrics?.transitioned(status, reason);
  }
}
