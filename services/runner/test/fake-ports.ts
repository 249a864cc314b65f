import type { ActivationJob, RunStatus } from '@switchyard/contracts';
import type { AgentLine, AgentSlots, HandOff, NextQuery, RunPosition, SlotClaim, StartedRun, StartInstead, JobWaker, RunEnding, RunRef, RunStore, SlotLease, StopReason } from '../src/ports';

/** A run as the fake ledger keeps it, with the spec of its agent version. */
export interface FakeRun extends RunRef {
  spec: unknown;
  queuedAt: number;
  stopRequested: boolean;
  paused: boolean;
  startedAt?: number;
  ending?: RunEnding;
}

/**
 * Why this exists: the runner's rules (FIFO, one slot per run, conditional
 * endings, lost-run detection) are worth checking without processes. This
 * ledger applies the same conditional updates as the PostgreSQL adapter.
 */
export class FakeRunStore implements RunStore {
  readonly runs = new Map<string, FakeRun>();
  private clock = 0;
  /** The `agent.run.*` facts the status changes recorded, as the runs trigger writes them with each change. */
  readonly facts: Array<{ runId: string; kind: string }> = [];

  /** The kinds of the facts recorded for a run, in order. */
  kinds(runId: string): string[] {
    return this.facts.filter((fact) => fact.runId === runId).map((fact) => fact.kind);
  }

  private moved(run: FakeRun, status: RunStatus): void {
    run.status = status;
    this.facts.push({ runId: run.id, kind: status === 'running' ? 'agent.run.started' : `agent.run.${status}` });
  }

  add(run: Omit<FakeRun, 'queuedAt' | 'stopRequested' | 'paused'>): FakeRun {
    const stored: FakeRun = { ...run, queuedAt: this.clock++, stopRequested: false, paused: false };
    this.runs.set(run.id, stored);
    return stored;
  }

  /** Runs read with load(), in order. */
  readonly loaded: string[] = [];

  async load(runId: string): Promise<RunPosition | null> {
    this.loaded.push(runId);
    const run = this.runs.get(runId);
    return run ? { ...run, ahead: this.ahead(run) } : null;
  }

  /** Every running run counts as possibly lost here (the fake's clock is a counter, not milliseconds). */
  async specOf(agentId: string, version: number): Promise<unknown> {
    return [...this.runs.values()].find((r) => r.agentId === agentId && r.agentVersion === version)?.spec ?? null;
  }

  /** Line reads of queuedCandidates, by agent, in order. */
  readonly lineReads: string[] = [];

  async queuedCandidates(agentId: string, limit: number, _lostAfterMs: number): Promise<AgentLine> {
    this.lineReads.push(agentId);
    return this.line(agentId, limit);
  }

  private async line(agentId: string, limit: number): Promise<AgentLine> {
    const ids = await this.nextQueued(agentId, limit);
    const candidates = ids.map((id) => ({ ...this.runs.get(id)! }));
    const running = [...this.runs.values()].filter((r) => r.agentId === agentId && r.status === 'running').map((r) => r.id);
    return { candidates, running, active: running };
  }

  private ahead(me: FakeRun): number {
    return [...this.runs.values()].filter((r) => r.agentId === me.agentId && r.status === 'queued' && r.queuedAt < me.queuedAt).length;
  }

  /** Runs markRunning started in place of the claimed one, in order. */
  readonly startedInstead: string[] = [];

  async markRunning(runId: string, instead?: StartInstead): Promise<StartedRun | null> {
    if (this.runs.get(runId)?.status !== 'queued' && instead) {
      const head = (await this.nextQueued(instead.agentId, this.runs.size)).find((id) => !instead.skip.includes(id));
      if (!head || this.runs.get(head)!.agentVersion !== instead.version) return null;
      this.startedInstead.push(head);
      return this.markRunning(head);
    }
    const run = this.runs.get(runId);
    if (run?.status !== 'queued') return null;
    this.moved(run, 'running');
    run.startedAt = this.clock++;
    const context = { origin: { type: 'manual' as const, input: 'go', userId: run.workspaceId }, sessionId: run.id, fact: null, transcriptSeq: 0 };
    return { ...run, context, stop: run.stopRequested ? 'stopped' : run.paused ? 'agents_paused' : null };
  }

  async finish(runId: string, from: readonly RunStatus[], ending: RunEnding): Promise<RunRef | null> {
    const run = this.runs.get(runId);
    if (!run || !from.includes(run.status)) return null;
    this.moved(run, ending.status);
    run.ending = ending;
    return { ...run };
  }

  /** Runs whose ending started the next in line (finishAndStartNext), in order. */
  readonly handedOff: string[] = [];

  async finishAndStartNext(runId: string, from: readonly RunStatus[], ending: RunEnding, next: NextQuery): Promise<HandOff> {
    this.handedOff.push(runId);
    // As the SQL: the line as it was before the statement, the ending and the started run left out.
    const before = await this.line(next.agentId, next.limit + 1);
    const ended = await this.finish(runId, from, ending);
    const head = ended ? (await this.nextQueued(next.agentId, this.runs.size)).find((id) => !next.skip.includes(id)) : undefined;
    const started = head && this.runs.get(head)!.agentVersion === next.version ? await this.markRunning(head) : null;
    const others = (ids: string[]) => ids.filter((id) => id !== runId);
    const candidates = before.candidates.filter((run) => run.id !== started?.id).slice(0, next.limit);
    return { ended, started, line: { candidates, running: others(before.running), active: others(before.active) } };
  }

  async stopReason(runId: string): Promise<StopReason | null> {
    const run = this.runs.get(runId)!;
    return run.stopRequested ? 'stopped' : run.paused ? 'agents_paused' : null;
  }

  async runningSince(): Promise<Array<{ id: string; agentId: string }>> {
    return [...this.runs.values()].filter((r) => r.status === 'running').map((r) => ({ id: r.id, agentId: r.agentId }));
  }

  async queuedSince(): Promise<Array<{ id: string; workspaceId: string; agentId: string }>> {
    return [...this.runs.values()].filter((r) => r.status === 'queued').map((r) => ({ id: r.id, workspaceId: r.workspaceId, agentId: r.agentId }));
  }

  async nextQueued(agentId: string, limit: number): Promise<string[]> {
    return [...this.runs.values()]
      .filter((r) => r.agentId === agentId && r.status === 'queued')
      .sort((a, b) => a.queuedAt - b.queuedAt)
      .slice(0, limit)
      .map((r) => r.id);
  }
}

/** Agent slots without time: a test expires one with `expire(runId)`, as a dead runner's lease would. */
export class FakeAgentSlots implements AgentSlots {
  readonly held = new Map<string, string>();

  /** Claims made (claim()), whether granted or not. */
  claims = 0;

  async claim(agentId: string, concurrency: number, candidates: readonly string[]): Promise<SlotClaim> {
    this.claims += 1;
    const held = await this.holders(agentId);
    const runId = candidates.find((id) => !held.has(id));
    const lease = runId === undefined ? null : await this.acquire(agentId, concurrency, runId);
    return { granted: lease ? { runId: runId!, lease } : null, held: await this.holders(agentId) };
  }

  /** Takes a free slot for a run (tests use it to make an agent busy). */
  async acquire(agentId: string, concurrency: number, runId: string): Promise<SlotLease | null> {
    for (let i = 0; i < concurrency; i++) {
      const key = `${agentId}:${i}`;
      if (this.held.has(key)) continue;
      return this.take(key, runId);
    }
    return null;
  }

  async handOver(agentId: string, concurrency: number, fromRunId: string, toRunId: string): Promise<SlotClaim> {
    const key = [...this.held].find(([slot, holder]) => slot.startsWith(`${agentId}:`) && holder === fromRunId)?.[0];
    const lease = key ? this.take(key, toRunId) : await this.acquire(agentId, concurrency, toRunId);
    return { granted: lease ? { runId: toRunId, lease } : null, held: await this.holders(agentId) };
  }

  private take(key: string, runId: string): SlotLease {
    this.held.set(key, runId);
    return {
      renew: async () => this.held.get(key) === runId,
      release: async () => {
        if (this.held.get(key) === runId) this.held.delete(key);
      },
      pass: async (toRunId) => (this.held.get(key) === runId ? this.take(key, toRunId) : null),
    };
  }

  async holders(agentId: string): Promise<Set<string>> {
    return new Set([...this.held].filter(([key]) => key.startsWith(`${agentId}:`)).map(([, runId]) => runId));
  }

  expire(runId: string): void {
    for (const [key, holder] of this.held) if (holder === runId) this.held.delete(key);
  }
}

/** Records which runs' jobs were woken. */
export class FakeWaker implements JobWaker {
  readonly woken: string[][] = [];
  readonly revived: string[] = [];
  /** Runs that have a live job (revive leaves them alone). */
  readonly live = new Set<string>();
  async wake(runIds: readonly string[]): Promise<void> {
    this.woken.push([...runIds]);
  }
  readonly withdrawn: string[] = [];
  async withdraw(runId: string): Promise<void> {
    this.withdrawn.push(runId);
  }
  async revive(jobs: readonly ActivationJob[]): Promise<number> {
    const added = jobs.filter((job) => !this.live.has(job.runId));
    for (const job of added) {
      this.revived.push(job.runId);
      this.live.add(job.runId);
    }
    return added.length;
  }
}
