import { randomUUID } from 'node:crypto';
import type { RunStatus } from '@switchyard/contracts';
import { agentLane } from '../lanes';
import type { Claimed, Ended, RunEnding, RunQueue, RunRef, StartedRun } from '../ports';

/** A run as the fake holds it. */
export interface FakeQueuedRun {
  id: string;
  lane: string;
  /** Its lane's workspace (FakeRunQueueStore.addLane). */
  workspaceId: string;
  agentId: string;
  status: RunStatus;
  reason: string | null;
  /** Place in the line (the SQL queue's queued_at, id). */
  order: number;
  /** When it was queued (ms), for the sweep's age. */
  queuedAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  stop: StartedRun['stop'];
  startedAt: number | null;
  /** Claims that started it: more than one means it executed before (parked and resumed, or continued after its runner died). */
  starts: number;
  /** Inside a call not safe to repeat (a write call started, no result): a lapse fails it runner_lost (decision 0051). */
  inWriteCall?: boolean;
  endedAt: number | null;
}

const MAX_CONCURRENCY = 1000;
/** The workspace of a lane added without one. */
const FAKE_WORKSPACE = 'fake-workspace';
/** Lane visits of one claim at most (run_queue_claim_next). */
const MAX_LANE_VISITS = 200;

/**
 * Why this exists: the runner's unit tests need a run queue with the real
 * one's rules (lanes, concurrency, FIFO, leases, runner_lost) without
 * PostgreSQL. One store holds the runs; `as(owner, leaseMs)` is a queue
 * acting for one runner process. Every call does its work synchronously, as
 * the SQL queue does under the lane's lock. A claim or an ending starts runs
 * across workspaces in the SQL queue's fair order. Passes the run queue
 * conformance suite, as the SQL adapter does.
 */
export class FakeRunQueueStore {
  readonly runs = new Map<string, FakeQueuedRun>();
  private readonly lanes = new Map<string, { concurrency: number; workspaceId: string }>();
  /** Per workspace, its `max_concurrent_runs` (none: no ceiling). */
  private readonly ceilings = new Map<string, number>();
  private order = 0;

  /** Adds (or changes) a lane, its concurrency and its workspace; returns its name. */
  addLane(concurrency: number, lane = agentLane(randomUUID()), workspaceId = FAKE_WORKSPACE): string {
    this.lanes.set(lane, { concurrency: Math.min(Math.max(concurrency, 1), MAX_CONCURRENCY), workspaceId });
    return lane;
  }

  /** Sets a workspace's ceiling of runs in flight (`workspace_settings.max_concurrent_runs`); null removes it. */
  setWorkspaceCeiling(workspaceId: string, ceiling: number | null): void {
    if (ceiling === null) this.ceilings.delete(workspaceId);
    else this.ceilings.set(workspaceId, ceiling);
  }

  /** Queues a run at the end of its lane's line; returns its id. */
  enqueue(lane: string, options: { id?: string; stop?: StartedRun['stop'] } = {}): string {
    const id = options.id ?? randomUUID();
    const agentId = lane.startsWith(agentLane('')) ? lane.slice(agentLane('').length) : lane;
    const workspaceId = this.lanes.get(lane)?.workspaceId ?? FAKE_WORKSPACE;
    this.runs.set(id, { id, lane, workspaceId, agentId, status: 'queued', reason: null, order: this.order++, queuedAt: Date.now(), leaseOwner: null, leaseUntil: null, stop: options.stop ?? null, startedAt: null, endedAt: null, starts: 0 });
    return id;
  }

  /** A queue acting for the runner process `owner`, with leases of `leaseMs`. */
  as(owner: string, leaseMs: number): FakeRunQueue {
    return new FakeRunQueue(this, owner, leaseMs);
  }

  /** The runs of a lane in a status. */
  inStatus(lane: string, status: RunStatus): FakeQueuedRun[] {
    return [...this.runs.values()].filter((run) => run.lane === lane && run.status === status).sort((a, b) => a.order - b.order);
  }

  /**
   * run_queue_claim_lane: lapsed leases back in line (their place kept), or failed runner_lost
   * inside a write call (run_lease_lapses_settle); then the oldest queued runs while the lane has room.
   */
  claimLane(lane: string, owner: string, leaseMs: number, limit: number): Claimed {
    const lost = this.lapses(lane);
    return { started: this.startInLane(lane, owner, leaseMs, limit), lost };
  }

  /** run_queue_claim: the lapsed leases of the run's lane, then up to `limit` runs across workspaces in the fair order. */
  claim(runId: string, owner: string, leaseMs: number, limit: number): Claimed {
    const run = this.runs.get(runId);
    if (!run) return { started: [], lost: [] };
    const lost = this.lapses(run.lane);
    return { started: this.claimNext(owner, leaseMs, limit), lost };
  }

  /** run_queue_end: the conditional ending (or parking), the lapses of the run's lane, then the fair claim. */
  end(runId: string, owner: string, leaseMs: number, status: RunStatus, reason: string | null, limit: number): Ended {
    const run = this.runs.get(runId);
    if (!run) return { ended: false, started: [], lost: [] };
    const ended = run.status === 'running' && run.leaseOwner === owner;
    if (ended) Object.assign(run, { status, reason, leaseOwner: null, leaseUntil: null, endedAt: status === 'awaiting_approval' ? null : Date.now() });
    const lost = this.lapses(run.lane);
    return { started: this.claimNext(owner, leaseMs, limit), lost, ended };
  }

  /**
   * run_queue_claim_next (decision 0054): the workspaces with queued runs in the order fewest runs
   * in flight, then oldest queued run; each capped by its ceiling. A first pass gives each its
   * share of the limit (limit / workspaces, at least 1), a second the rest in the same order; in
   * a workspace, its lanes with queued runs in name order, at most MAX_LANE_VISITS a claim.
   */
  private claimNext(owner: string, leaseMs: number, limit: number): StartedRun[] {
    const started: StartedRun[] = [];
    if (limit <= 0) return started;
    const all = [...this.runs.values()];
    const spaces = [...new Set(all.filter((run) => run.status === 'queued').map((run) => run.workspaceId))].map((workspaceId) => {
      const inFlight = all.filter((run) => run.workspaceId === workspaceId && run.status === 'running').length;
      const oldest = Math.min(...all.filter((run) => run.workspaceId === workspaceId && run.status === 'queued').map((run) => run.order));
      const ceiling = this.ceilings.get(workspaceId);
      return { workspaceId, inFlight, oldest, room: ceiling === undefined ? limit : Math.max(ceiling - inFlight, 0) };
    });
    spaces.sort((a, b) => a.inFlight - b.inFlight || a.oldest - b.oldest || a.workspaceId.localeCompare(b.workspaceId));
    if (spaces.length === 0) return started;
    const share = Math.max(1, Math.floor(limit / spaces.length));
    let visits = 0;
    for (const pass of [1, 2]) {
      for (const space of spaces) {
        if (started.length >= limit || visits >= MAX_LANE_VISITS) break;
        let room = Math.min(space.room, limit - started.length, pass === 1 ? share : limit);
        const lanes = [...new Set(all.filter((run) => run.workspaceId === space.workspaceId && run.status === 'queued').map((run) => run.lane))].sort();
        for (const lane of lanes) {
          if (room <= 0 || visits >= MAX_LANE_VISITS) break;
          visits += 1;
          const got = this.startInLane(lane, owner, leaseMs, room);
          started.push(...got);
          room -= got.length;
          space.room -= got.length;
        }
      }
      if (started.length >= limit || visits >= MAX_LANE_VISITS) break;
    }
    return started;
  }

  /** run_lane_lapses: a lane's lapsed leases back in line (their place kept), or failed runner_lost inside a write call. */
  private lapses(lane: string): RunRef[] {
    const now = Date.now();
    const lost: RunRef[] = [];
    for (const run of this.inStatus(lane, 'running')) {
      if (run.leaseUntil !== null && run.leaseUntil >= now) continue;
      if (run.inWriteCall) {
        Object.assign(run, { status: 'failed', reason: 'runner_lost', leaseOwner: null, leaseUntil: null, endedAt: now });
        lost.push(refOf(run));
      } else {
        Object.assign(run, { status: 'queued', leaseOwner: null, leaseUntil: null });
      }
    }
    return lost;
  }

  /** run_lane_start: the lane's oldest queued runs while it has room. */
  private startInLane(lane: string, owner: string, leaseMs: number, limit: number): StartedRun[] {
    const now = Date.now();
    const room = Math.min((this.lanes.get(lane)?.concurrency ?? 1) - this.inStatus(lane, 'running').length, Math.max(0, limit));
    return this.inStatus(lane, 'queued')
      .slice(0, Math.max(0, room))
      .map((run) => {
        Object.assign(run, { status: 'running', leaseOwner: owner, leaseUntil: now + leaseMs, startedAt: now, starts: run.starts + 1 });
        return startedOf(run);
      });
  }
}

/** The fake run queue of one runner process (FakeRunQueueStore.as). */
export class FakeRunQueue implements RunQueue {
  constructor(
    readonly store: FakeRunQueueStore,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  async claim(runId: string, limit: number): Promise<Claimed> {
    return this.store.claim(runId, this.owner, this.leaseMs, limit);
  }

  async claimLane(lane: string, limit: number): Promise<Claimed> {
    return this.store.claimLane(lane, this.owner, this.leaseMs, limit);
  }

  async end(runId: string, ending: RunEnding, limit: number): Promise<Ended> {
    return this.store.end(runId, this.owner, this.leaseMs, ending.status, ending.reason, limit);
  }

  async park(runId: string, limit: number): Promise<Ended> {
    return this.store.end(runId, this.owner, this.leaseMs, 'awaiting_approval', null, limit);
  }

  async resume(runId: string): Promise<boolean> {
    const run = this.store.runs.get(runId);
    if (run?.status !== 'awaiting_approval') return false;
    run.status = 'queued';
    return true;
  }

  async renew(runIds: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const id of runIds) {
      const run = this.store.runs.get(id);
      if (run?.status === 'running' && run.leaseOwner === this.owner) {
        run.leaseUntil = Date.now() + this.leaseMs;
        held.add(id);
      }
    }
    return held;
  }

  async lanesToSweep(queuedOlderThanMs: number): Promise<string[]> {
    const now = Date.now();
    const lanes = [...this.store.runs.values()]
      .filter((run) => (run.status === 'queued' && run.queuedAt <= now - queuedOlderThanMs) || (run.status === 'running' && (run.leaseUntil ?? 0) < now))
      .map((run) => run.lane);
    return [...new Set(lanes)];
  }
}

function refOf(run: FakeQueuedRun): RunRef {
  return { id: run.id, workspaceId: run.workspaceId, workspaceSlug: 'fake', agentId: run.agentId, agentVersion: 1, status: run.status, eventId: null, depth: 0 };
}

function startedOf(run: FakeQueuedRun): StartedRun {
  return {
    ...refOf(run),
    context: { origin: { type: 'manual', input: 'go', userId: '00000000-0000-7000-8000-000000000000' }, sessionId: run.id, fact: null, transcriptSeq: 0, continued: run.starts > 1 },
    stop: run.stop,
  };
}
