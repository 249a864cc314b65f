import { MAX_AGENT_CONCURRENCY, RUN_FAILURE_CODES } from '@switchyard/contracts';
import type { ActivationJob, AgentSpec } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { SqlWaitParking } from '@switchyard/runs';
import { ProcessCapacity } from './process-capacity';
import { executeRun, RUNNER_LOST } from './run-execution';
import { SpecCache } from './spec-cache';
import { isTryRun, prepareTryRun } from './try-run';
import type { ApprovalParking, Claimed, ExecutionContext, Executor, OrphanWakes, RunEnding, RunQueue, RunReads, RunRef, RunStartGate, StartedRun } from './ports';

/** Tries `attempt` up to three times, a quarter second apart: an ending survives a blip of the database. */
async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Counters the runner reports; the service binds them to Prometheus. */
export interface RunnerMetrics {
  /** A run was moved to a status (`running` or an ending) by this process. */
  transitioned(status: RunRef['status'], reason: string | null): void;
}

/** Constructor arguments of Runner. */
export interface RunnerOptions {
  queue: RunQueue;
  reads: RunReads;
  executor: Executor;
  log: Logger;
  /** Runs this process executes at once (RUNNER_CONCURRENCY). */
  concurrency: number;
  /** Told when the process becomes full and when a slot frees again (back-pressure on activation jobs). @defaultValue none */
  onFull?: (full: boolean) => void;
  /** The queue's lease length: renewed every third of it while runs execute. */
  leaseMs: number;
  /** Age from which the sweep claims a lane's queued runs (their job may be lost). @defaultValue 5000 */
  sweepQueuedAfterMs?: number;
  metrics?: RunnerMetrics;
  /** Parks runs on approvals (decision 0026). Absent: a call a person must approve fails. @defaultValue none */
  parking?: ApprovalParking;
  /** Parks runs on waits for a fact (decision 0055). Absent: `wait_for_event` calls fail. @defaultValue none */
  waitParking?: Pick<SqlWaitParking, 'park'>;
  /** Queues the turns of teammates' mailboxes left open with no turn; run by the sweep. @defaultValue none */
  orphans?: OrphanWakes;
  /** Called right after an ending was committed: the run news of a followed run, and a test fixture's fault injection. @defaultValue none */
  afterEnding?: (run: StartedRun) => void;
  /** Awaited before a run's ending is written (a test fixture holds one there to die after a run's last step); nothing else uses it. */
  beforeEnding?: (run: RunRef) => Promise<void>;
  /**
   * The operator's pause of run starts (the dashboard's pause of `activations`): while paused,
   * every claim starts nothing — lapsed leases are still failed, endings still written. @defaultValue never paused
   */
  gate?: RunStartGate;
}

/**
 * Executes the runs of the run queue (decision 0009). An activation job
 * claims its run's lane; what a claim starts is executed here, side by
 * side; a run's ending claims its lane's next runs in the same call. Leases
 * are renewed in one statement for all runs the process holds; a run whose
 * lease is not renewed is aborted (it ends `runner_lost`).
 */
export class Runner {
  private readonly specs: SpecCache;
  private readonly capacity: ProcessCapacity;
  /** The runs this process executes, by id. */
  private readonly executing = new Map<string, AbortController>();
  private readonly tasks = new Set<Promise<void>>();
  /** The runs whose lease this process renews: from their start until their ending is written (an ending waiting for the database keeps its lease). */
  private readonly leased = new Set<string>();
  /** Runs that parked during their execution: their slots are given already. */
  private readonly parked = new Set<string>();
  /** Per agent, the concurrency of the latest spec seen: what a job's claim reserves (a wider lane is filled by its other jobs). */
  private readonly widths = new Map<string, number>();
  private readonly renewal: NodeJS.Timeout;
  private stopping = false;

  constructor(private readonly options: RunnerOptions) {
    this.specs = new SpecCache((agentId, version) => options.reads.specOf(agentId, version));
    this.capacity = new ProcessCapacity(options.concurrency, options.onFull);
    this.renewal = setInterval(() => void this.renew(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.renewal.unref();
  }

  /**
   * Handles an activation job: claims its run's lane (once a slot of this
   * process is free) and executes what it got. The job was handed out while
   * run starts were not paused — BullMQ's fetch (its moveToActive script)
   * reads the queue's pause flag and hands out nothing while it is set — so a
   * claim made at once reads no gate of its own; one that waited for a slot
   * reads it then (decision 0043).
   */
  async handle(job: ActivationJob): Promise<void> {
    // Its run started already here, by the claim of another job of its lane: nothing to wake.
    if (this.leased.has(job.runId)) return;
    // Reserving only what the lane can take leaves the rest to the claims of other lanes' jobs.
    const { reserved, waited } = await this.capacity.reserveWhenFree(this.widths.get(job.agentId) ?? MAX_AGENT_CONCURRENCY);
    // Stopping: the run stays queued for another runner's job or sweep.
    if (reserved === 0) return;
    // Paused while the job waited: the run stays queued; the sweep claims its lane once starts resume.
    if (waited && (await this.paused())) return this.capacity.settle(reserved, 0);
    await this.claimed(reserved, () => this.options.queue.claim(job.runId, reserved));
  }

  /**
   * The periodic sweep: claims the lanes with queued runs older than
   * `sweepQueuedAfterMs` (their job was lost) or a lapsed lease (a runner
   * died; the claim puts its runs back in line and continues them, or fails
   * one lost inside a call not safe to repeat runner_lost: decision 0051), after queueing the turns
   * of teammates' mailboxes that no turn holds. Returns how many runs it
   * started and failed.
   */
  async sweep(): Promise<{ started: number; failed: number }> {
    let started = 0;
    let failed = 0;
    const paused = await this.paused();
    if (!paused) for (const runId of (await this.options.orphans?.wakeOrphans()) ?? []) started += (await this.claimRun(runId)).started.length;
    const lanes = await this.options.queue.lanesToSweep(this.options.sweepQueuedAfterMs ?? 5000);
    for (const lane of lanes) {
      // Paused: a claim of no slots still fails the runs of a lapsed lease, and starts nothing.
      const reserved = this.stopping || paused ? 0 : this.capacity.reserve(MAX_AGENT_CONCURRENCY);
      const claim = await this.claimed(reserved, () => this.options.queue.claimLane(lane, reserved));
      started += claim.started.length;
      failed += claim.lost.length;
    }
    if (paused && lanes.length > 0) this.options.log.info({ lanes }, 'the sweep started nothing: run starts are paused');
    if (started > 0) this.options.log.warn({ started }, 'the sweep started queued runs no job had');
    return { started, failed };
  }

  /** Claims nothing more (the process is stopping); runs in progress go on. */
  stop(): void {
    this.stopping = true;
    this.capacity.close();
  }

  /** Aborts every run in progress (the process is stopping): they end runner_lost. */
  abortAll(reason: string): void {
    for (const controller of this.executing.values()) controller.abort(reason);
  }

  /** Runs this process executes now. */
  inFlight(): number {
    return this.executing.size;
  }

  /** Resolves once no run executes and no ending is in flight. */
  async settled(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  /** Stops the lease renewal (after settled()). */
  close(): void {
    clearInterval(this.renewal);
  }

  /** Makes a claim that reserved `reserved` slots, then executes what it started and cleans up what it found lost. */
  private async claimed<T extends Claimed>(reserved: number, claim: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await claim();
    } catch (error) {
      this.capacity.settle(reserved, 0);
      throw error;
    }
    this.capacity.settle(reserved, result.started.length);
    this.take(result);
    return result;
  }

  /** Executes the runs a claim started (their slots are counted already) and cleans up after the lost ones. */
  private take(claim: Claimed): void {
    for (const run of claim.started) this.launch(run);
    for (const run of claim.lost) {
      this.options.log.warn({ runId: run.id }, 'run lost with its runner; failed');
      this.counted('failed', RUNNER_LOST);
      this.options.executor
        .abandoned?.(run)
        .then(async (next) => {
          if (next) await this.claimRun(next);
        })
        .catch((error: unknown) => this.options.log.warn({ err: error, runId: run.id }, 'lost run not cleaned up'));
    }
  }

  /** Claims the lane of a run queued here (a teammate's next turn), with the free slots of this process. */
  private async claimRun(runId: string): Promise<Claimed> {
    const reserved = this.stopping || (await this.paused()) ? 0 : this.capacity.reserve(MAX_AGENT_CONCURRENCY);
    return this.claimed(reserved, () => this.options.queue.claim(runId, reserved));
  }

  /** Whether the operator paused run starts (no gate: never). */
  private async paused(): Promise<boolean> {
    return (await this.options.gate?.paused()) ?? false;
  }

  /** The slots a claim may fill: none while starts are paused (the reservation is then given back whole). */
  private async startable(reserved: number): Promise<number> {
    return reserved > 0 && (await this.paused()) ? 0 : reserved;
  }

  private launch(run: StartedRun): void {
    const controller = new AbortController();
    this.executing.set(run.id, controller);
    this.options.log.info({ runId: run.id, agentId: run.agentId }, 'run started');
    this.counted('running', null);
    this.leased.add(run.id);
    const task: Promise<void> = this.run(run, controller)
      .catch((error: unknown) => this.options.log.error({ err: error, runId: run.id }, 'run not ended; left to its lease'))
      .finally(() => {
        this.leased.delete(run.id);
        this.tasks.delete(task);
      });
    this.tasks.add(task);
  }

  private async run(run: StartedRun, controller: AbortController): Promise<void> {
    const { reads, executor, log } = this.options;
    let ending: RunEnding | { status: 'parked' };
    try {
      // A try runs the spec stored with it, in shadow (decision 0027): its lane is its own, and it never parks.
      const shadow = isTryRun(run);
      const prepared = shadow ? await prepareTryRun(reads, run) : await this.versionRun(run);
      ending = prepared
        ? await executeRun({ reads, executor, log }, prepared.run, prepared.spec, controller.signal, shadow ? undefined : this.parkFor(run), shadow ? undefined : this.parkOnWaitFor(run))
        : { status: 'failed', reason: RUN_FAILURE_CODES.specInvalid, outcome: null, error: { code: RUN_FAILURE_CODES.specInvalid, message: 'the stored agent spec does not parse' } };
    } finally {
      this.executing.delete(run.id);
    }
    // A parked run's slot went to its park's claim (parkFor): the ledger holds it parked, whatever came after.
    if (this.parked.delete(run.id)) return;
    const code = RUN_FAILURE_CODES.executorError;
    await this.end(run, ending.status === 'parked' ? { status: 'failed', reason: code, outcome: null, error: { code, message: 'the executor returned parked without parking' } } : ending);
  }

  /**
   * The run's way to park on approvals: one statement (approvals, their
   * facts, the queue's park) whose claim of the lane takes the run's own slot
   * with the free ones of this process — a parked run executes nothing more,
   * so nothing claims again after it. A run that did not park keeps its slot.
   */
  private parkFor(run: StartedRun): ExecutionContext['park'] {
    const { parking } = this.options;
    if (!parking) return undefined;
    return async (requests, timeoutMs) => {
      const reserved = this.capacity.ending(MAX_AGENT_CONCURRENCY);
      let parked: Awaited<ReturnType<typeof parking.park>>;
      try {
        parked = await parking.park(run, requests, timeoutMs, await this.startable(reserved));
      } catch (error) {
        this.capacity.settle(reserved, 1);
        throw error;
      }
      const goesOn = parked.outcome.type === 'parked' ? 0 : 1;
      const claim = { started: parked.claim?.started ?? [], lost: parked.claim?.lost ?? [] };
      if (goesOn === 0) {
        this.parked.add(run.id);
        this.counted('awaiting_approval', null);
      }
      this.capacity.settle(reserved, claim.started.length + goesOn);
      this.take(claim);
      return parked.outcome;
    };
  }

  /** The run's way to park on a wait for a fact (decision 0055): as parkFor, its claim taking the run's slot when it parked. */
  private parkOnWaitFor(run: StartedRun): ExecutionContext['parkOnWait'] {
    const { waitParking } = this.options;
    if (!waitParking) return undefined;
    return async (wait) => {
      const reserved = this.capacity.ending(MAX_AGENT_CONCURRENCY);
      let outcome: Awaited<ReturnType<typeof waitParking.park>>;
      try {
        outcome = await waitParking.park(run, wait, await this.startable(reserved));
      } catch (error) {
        this.capacity.settle(reserved, 1);
        throw error;
      }
      if (outcome.type !== 'parked') {
        this.capacity.settle(reserved, 1);
        return outcome;
      }
      this.parked.add(run.id);
      this.counted('awaiting_event', null);
      this.capacity.settle(reserved, outcome.claim.started.length);
      this.take(outcome.claim);
      return { type: 'parked' };
    };
  }

  /** A run of a saved version: its spec from the cache (null when it does not parse). */
  private async versionRun(run: StartedRun): Promise<{ run: StartedRun; spec: AgentSpec } | null> {
    const spec = await this.specs.get(run.agentId, run.agentVersion);
    if (spec) this.noteWidth(run.agentId, spec.flow.concurrency);
    return spec ? { run, spec } : null;
  }

  /** Writes the ending; the same call claims the lane's next runs with the slot this run frees. */
  private async end(run: StartedRun, ending: RunEnding): Promise<void> {
    await this.options.beforeEnding?.(run);
    const reserved = this.capacity.ending(MAX_AGENT_CONCURRENCY);
    const result = await this.claimed(reserved, async () => {
      const limit = await this.startable(reserved);
      const ended = await retried(() => this.options.queue.end(run.id, ending, limit));
      this.options.afterEnding?.(run);
      return ended;
    });
    if (result.ended) this.counted(ending.status, ending.reason);
    else this.options.log.warn({ runId: run.id, status: ending.status }, 'run was ended by someone else; outcome not recorded');
  }

  private noteWidth(agentId: string, concurrency: number): void {
    this.widths.delete(agentId);
    // Oldest first out: a Map keeps insertion order.
    if (this.widths.size >= 10_000) this.widths.delete(this.widths.keys().next().value!);
    this.widths.set(agentId, concurrency);
  }

  /** Extends the leases of the runs held here, in one statement; aborts those whose lease is gone. */
  private async renew(): Promise<void> {
    const ids = [...this.leased];
    if (ids.length === 0) return;
    try {
      const held = await this.options.queue.renew(ids);
      for (const id of ids) {
        if (!held.has(id)) this.executing.get(id)?.abort(RUNNER_LOST);
      }
    } catch (error) {
      // The leases outlive two missed renewals; the next one tries again.
      this.options.log.warn({ err: error }, 'lease renewal failed');
    }
  }

  private counted(status: RunRef['status'], reason: string | null): void {
    this.options.metrics?.transitioned(status, reason);
  }
}
