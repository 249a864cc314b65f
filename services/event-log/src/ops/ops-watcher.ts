import { OPS_FACT_KINDS, type OpsFactKind } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { once } from '@switchyard/redis';
import { backlogDraft, deadLetterDraft, modelErrorDrafts, recoveredBelow, recoveryDraft, runnerLostDraft } from './ops-drafts';
import type { OpsDraft, OpsStore, RecordOptions } from './ops-ports';

/** Counters the watcher reports; the service binds them to Prometheus. */
export interface OpsWatcherMetrics {
  /** A fact of `kind` was recorded, or suppressed by its rate limit. */
  fact(kind: OpsFactKind, outcome: 'recorded' | 'suppressed'): void;
  /** A tick ran to its end (as the leader). */
  ticked(): void;
}

/** When an observation becomes a fact. */
export interface OpsThresholds {
  /** Queued runs from which a lane is backlogged (OPS_QUEUE_BACKLOG_DEPTH). */
  backlogDepth: number;
  /** New dead letters of a workspace in a stream and group within the window (OPS_DEAD_LETTERS_MIN). */
  deadLetters: number;
  /** Model failures of a workspace and provider within the window (OPS_MODEL_ERRORS_MIN). */
  modelErrors: number;
}

/** Constructor arguments of OpsWatcher. */
export interface OpsWatcherOptions {
  store: OpsStore;
  log: Logger;
  thresholds: OpsThresholds;
  /** At most one fact per (kind, workspace, key) per window; also the span model errors and dead letters are counted over (OPS_FACT_WINDOW_MS). */
  windowMs: number;
  /** How often it looks (OPS_WATCH_INTERVAL_MS). */
  intervalMs: number;
  /** Whether this process acts now: the event-log's outbox relay leader, so one replica looks at a time. @defaultValue always */
  isLeader?: () => boolean;
  /** The time facts and windows are reckoned by. @defaultValue the system clock */
  clock?: () => Date;
  metrics?: OpsWatcherMetrics;
}

/** What one tick recorded and suppressed. */
export interface OpsTick {
  recorded: number;
  suppressed: number;
}

/**
 * Records the platform's own trouble as facts in the workspaces it affects
 * (issue 36, decision 0038): lost runners (their lease lapses, noted by the
 * lane claims), backlogged and recovered lanes, growing dead letters, failing
 * model providers. Every `intervalMs` the leader looks; each observation is a
 * draft the store records at most once per (kind, workspace, key) per
 * window — a mark in PostgreSQL written with the fact, so replicas and
 * restarts share it. A detector that fails is logged; the others go on.
 */
export class OpsWatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private closing = false;

  constructor(private readonly options: OpsWatcherOptions) {}

  /** Looks every intervalMs until closed (the first look after one interval). */
  start(): void {
    this.schedule();
  }

  /** One look, if this process leads; what it recorded and suppressed. */
  async tick(): Promise<OpsTick> {
    const tally: OpsTick = { recorded: 0, suppressed: 0 };
    if (this.options.isLeader && !this.options.isLeader()) return tally;
    const now = (this.options.clock ?? (() => new Date()))();
    const detectors: Array<[string, () => Promise<void>]> = [
      ['runner_lost', () => this.lostRunners(now, tally)],
      ['queue', () => this.queues(now, tally)],
      ['dead_letters', () => this.deadLetters(now, tally)],
      ['model_errors', () => this.modelErrors(now, tally)],
      ['prune', async () => void (await this.options.store.prune(new Date(now.getTime() - this.options.windowMs)))],
    ];
    for (const [detector, detect] of detectors) {
      try {
        await detect();
      } catch (error) {
        this.options.log.warn({ err: error, detector }, 'ops watcher detector failed; retried next tick');
      }
    }
    this.options.metrics?.ticked();
    return tally;
  }

  readonly close = once(async () => {
    this.closing = true;
    clearTimeout(this.timer);
    await this.running;
  });

  private schedule(): void {
    if (this.closing) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'ops watcher tick failed'))
        .finally(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async lostRunners(now: Date, tally: OpsTick): Promise<void> {
    for (const lost of await this.options.store.lostRunners(new Date(now.getTime() - this.options.windowMs))) {
      await this.record(runnerLostDraft(lost, this.options.windowMs), { now, windowMs: this.options.windowMs, settles: lost.noteIds }, tally);
    }
  }

  private async queues(now: Date, tally: OpsTick): Promise<void> {
    const { store, windowMs, thresholds } = this.options;
    const backlogged = await store.backloggedLanes(thresholds.backlogDepth);
    for (const lane of backlogged) await this.record(backlogDraft(lane, thresholds.backlogDepth, windowMs), { now, windowMs, opens: true }, tally);
    const below = recoveredBelow(thresholds.backlogDepth);
    for (const open of await store.openBacklogs()) {
      if (open.depth >= below) continue;
      const recorded = await store.recordRecovery(recoveryDraft(open, thresholds.backlogDepth, windowMs, now), OPS_FACT_KINDS.queueBacklogged, now);
      if (recorded) this.counted(OPS_FACT_KINDS.queueRecovered, true, tally);
    }
  }

  private async deadLetters(now: Date, tally: OpsTick): Promise<void> {
    const { store, windowMs, thresholds } = this.options;
    for (const growth of await store.deadLetterGrowth(new Date(now.getTime() - windowMs), thresholds.deadLetters)) {
      await this.record(deadLetterDraft(growth, windowMs), { now, windowMs }, tally);
    }
  }

  private async modelErrors(now: Date, tally: OpsTick): Promise<void> {
    const { store, windowMs, thresholds } = this.options;
    const rows = await store.modelFailures(new Date(now.getTime() - windowMs));
    for (const draft of modelErrorDrafts(rows, thresholds.modelErrors, windowMs)) await this.record(draft, { now, windowMs }, tally);
  }

  private async record(draft: OpsDraft, options: RecordOptions, tally: OpsTick): Promise<void> {
    const recorded = await this.options.store.record(draft, options);
    this.counted(draft.kind, recorded, tally);
    if (recorded) this.options.log.info({ kind: draft.kind, workspace: draft.workspace.slug, key: draft.key }, 'ops fact recorded');
  }

  private counted(kind: OpsFactKind, recorded: boolean, tally: OpsTick): void {
    if (recorded) tally.recorded++;
    else tally.suppressed++;
    this.options.metrics?.fact(kind, recorded ? 'recorded' : 'suppressed');
  }
}
