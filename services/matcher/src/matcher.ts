import { ACTIVATION_DROP_REASONS, TEAMMATE_FACT_KINDS, WORKSPACE_FACT_KINDS, type ActivationJob, type Fact } from '@switchyard/contracts';
import { newId, runVersionOf } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { ActivationGuards, reachedDebounce, type ActivationDecision } from './activation-guards';
import type { AgentIndex, TriggerMatch } from './agent-index';
import type { BridgeCandidate, EventBridge } from './event-bridge';
import { ORDERED_KINDS, PARKED_KIND, pairKey, type ActivationSink, type ActivationSkipRecord, type AgentHistory, type AgentHistoryQuery, type MatcherStore, type TriggerRunRow, type TriggerRunSlot } from './ports';

/** Counters the matcher reports; main wiring binds them to Prometheus. */
export interface MatcherMetrics {
  decided(decision: ActivationDecision): void;
}

/** Constructor arguments of Matcher. */
export interface MatcherOptions {
  store: MatcherStore;
  index: AgentIndex;
  guards: ActivationGuards;
  activations: ActivationSink;
  /** Delivers the facts teammates watch to their mailboxes; without it, watches are not followed. */
  bridge?: EventBridge;
  /** Folds delegated runs' results back to their parents (DelegationReturns); without it, they are not. */
  returns?: { handle(facts: readonly Fact[]): Promise<void> };
  /**
   * Resolves the runs' waits for facts the batch matches (decision 0055): loaded after the seqs,
   * told of every park (`agent.run.awaiting_event`) in fact order as agent changes are. @defaultValue none
   */
  waits?: { load(): Promise<void>; parked(workspaceId: string): void; handle(facts: readonly MatcherFact[]): Promise<void> };
  log: Logger;
  /** The consumer name cursors are saved under. @defaultValue 'matcher' */
  consumer?: string;
  /**
   * Longest a cursor advanced only by facts that matched nothing waits to be
   * saved (see handle). @defaultValue 1000
   */
  cursorLingerMs?: number;
  metrics?: MatcherMetrics;
  clock?: () => number;
}

/** A fact with the internal id of its workspace, as it arrives on `facts`. */
export interface MatcherFact {
  fact: Fact;
  workspaceId: string;
}

/**
 * Turns facts into runs. For each fact, in seq order: reload what an
 * `agent.*` or settings fact announces, find the agents whose triggers match
 * (the index, never a scan), run the guards, and record a `queued` run (or a
 * `dropped` one) — at most one per (agent, fact), by a unique index. Then,
 * for the whole batch: enqueue the jobs, deliver the watched facts to
 * teammates, fold delegated runs' results back to their parents, save the
 * cursors. A crash anywhere repeats the batch: the unique index makes the
 * repeat find its runs instead of making new ones, and re-enqueues and
 * re-records them idempotently.
 */
export class Matcher {
  private readonly cursors = new Map<string, number>();
  /** Cursors advanced by facts that matched nothing, not saved yet. */
  private readonly unsaved = new Map<string, number>();
  private lingering: NodeJS.Timeout | undefined;
  private readonly lastDebounceArrival = new Map<string, number>();
  private paused = new Set<string>();
  /** Per workspace: the seq up to which agent and settings changes are applied to the index. */
  private readonly changesApplied = new Map<string, number>();
  private readonly consumer: string;
  private readonly clock: () => number;

  constructor(private readonly options: MatcherOptions) {
    this.consumer = options.consumer ?? 'matcher';
    this.clock = options.clock ?? Date.now;
  }

  /** Loads the agents, the kill switches and the cursors. */
  async load(): Promise<{ initialized: boolean }> {
    const { store, index } = this.options;
    // Read first: every change up to these seqs is in what is loaded next; a later one is applied
    // again in fact order (changesUpTo), which is harmless.
    for (const [workspaceId, seq] of await store.lastSeqs()) this.changesApplied.set(workspaceId, seq);
    // After the seqs: a wait parked after this read announces itself with a later seq (decision 0055).
    await this.options.waits?.load();
    for (const agent of await store.loadAgents()) index.upsert(agent);
    for (const teammate of await store.loadTeammates()) index.upsertTeammate(teammate);
    this.paused = await store.pausedWorkspaces();
    const saved = await store.loadCursors(this.consumer);
    for (const [workspaceId, seq] of saved.cursors) this.cursors.set(workspaceId, seq);
    return { initialized: saved.initialized };
  }

  /** The seq this matcher has processed up to in a workspace (0 when none). */
  cursor(workspaceId: string): number {
    return this.cursors.get(workspaceId) ?? 0;
  }

  /** Starts a workspace's cursor at a seq without processing what is before it. */
  setCursor(workspaceId: string, seq: number): void {
    this.cursors.set(workspaceId, Math.max(seq, this.cursor(workspaceId)));
  }

  /**
   * Processes facts in order; resolves once their runs, jobs, facts and cursors
   * are durable. The database work is per batch, not per activation: the
   * matches are collected in fact order (agent changes applied where they fall),
   * the history of every matched agent is read in one round trip, the guards
   * decide in fact order on that history plus this batch's own activations,
   * and the runs are inserted with one statement.
   */
  async handle(batch: readonly MatcherFact[]): Promise<void> {
    const advanced = new Map<string, number>();
    const candidates: Candidate[] = [];
    const watched: BridgeCandidate[] = [];
    // Every fact given is matched, even one below the cursor: with several replicas, the
    // saved cursor is the furthest any of them got, and the entries a dead replica held (or
    // this one held before it restarted) are older and unprocessed. A repeat of a processed
    // fact finds its runs (the unique index) instead of making new ones.
    const changes = await this.changesUpTo(batch);
    let reloaded = false;
    for (const { fact, workspaceId } of batch) {
      reloaded = (await this.applyChanges(workspaceId, changes, fact.seq)) || reloaded;
      const paused = this.paused.has(workspaceId);
      for (const match of this.options.index.match(workspaceId, fact)) candidates.push({ match, fact, workspaceId, paused });
      if (this.options.bridge) for (const match of this.options.index.matchTeammates(workspaceId, fact)) watched.push({ match, fact, workspaceId, paused });
      const furthest = Math.max(fact.seq, this.cursor(workspaceId));
      this.cursors.set(workspaceId, furthest);
      advanced.set(workspaceId, furthest);
    }
    const slots = candidates.length > 0 ? await this.activate(candidates) : [];
    // The runs' `agent.run.queued|dropped` facts were written with them (the runs trigger).
    const jobs: ActivationJob[] = slots
      .filter(({ slot }) => slot.status === 'queued')
      .map(({ slot, candidate }) => ({ schemaVersion: 1, runId: slot.runId, workspaceId: candidate.workspaceId, agentId: candidate.match.agent.agentId }));
    // Idempotent on a repeat (job id = run id).
    await this.options.activations.enqueue(jobs);
    // The teammates' deliveries, recorded like runs: a repeat finds them (decision 0035).
    const bridged = this.options.bridge ? await this.options.bridge.deliver(watched) : { skipped: 0 };
    // In the same batch, not a group of its own: one read of `facts` for both, and a reconcile replays returns too.
    await this.options.returns?.handle(batch.map(({ fact }) => fact));
    await this.options.waits?.handle(batch);
    if (advanced.size === 0) return;
    // Every match either has its run recorded (a repeat finds it: nothing is decided again) or
    // was skipped (its skip recorded; a repeat decides it anew and overwrites that).
    const skipped = candidates.length - slots.length + bridged.skipped;
    if (skipped > 0 || reloaded) {
      // A batch that skipped a match (cooldown, throttle… would decide anew on a later clock),
      // or changed what later facts match, is saved now.
      for (const [workspaceId, seq] of this.unsaved) if (!advanced.has(workspaceId)) advanced.set(workspaceId, seq);
      this.unsaved.clear();
      await this.options.store.saveCursors(this.consumer, advanced);
      return;
    }
    // Facts that matched nothing (most are the platform's own agent.run.* facts) or whose runs
    // are all recorded: their cursor waits up to cursorLingerMs to be saved with a later batch.
    // Processing them again after a crash decides nothing new (decision 0010), so the write per
    // batch is not needed.
    for (const [workspaceId, seq] of advanced) this.unsaved.set(workspaceId, seq);
    this.lingering ??= setTimeout(() => {
      this.lingering = undefined;
      this.saveUnsaved().catch((error: unknown) => this.options.log.warn({ err: error }, 'saving the matcher cursors failed; saved with a later batch'));
    }, this.options.cursorLingerMs ?? 1000);
    this.lingering.unref();
  }

  /** Saves the cursors not saved yet (the linger ran out, or the matcher stops). */
  async saveUnsaved(): Promise<void> {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.unsaved.size === 0) return;
    const cursors = new Map(this.unsaved);
    this.unsaved.clear();
    try {
      await this.options.store.saveCursors(this.consumer, cursors);
    } catch (error) {
      // Kept for the next save; a newer seq of the same workspace wins.
      for (const [workspaceId, seq] of cursors) if (!this.unsaved.has(workspaceId)) this.unsaved.set(workspaceId, seq);
      throw error;
    }
  }

  /**
   * Decides every candidate in order and records the runs; returns the slot of each run recorded.
   * An agent whose guards read its past activations (cooldown, throttle, debounce: "paced") has
   * them read first, with the runs that exist for its pairs, and is decided here in full. Any
   * other agent's candidates (the default flow) need nothing stored but whether their run exists
   * and how full the agent's queue is: the statement that records the runs answers both — the run
   * found for a pair is kept, the queue cap decided in the insert — so such a batch is one round trip.
   */
  private async activate(candidates: readonly Candidate[]): Promise<Array<{ slot: TriggerRunSlot; candidate: Candidate }>> {
    const { store } = this.options;
    const now = this.clock();
    const paced = pacedAgents(candidates);
    const pacedCandidates = candidates.filter(({ match }) => paced.has(match.agent.agentId));
    const { histories, existing } =
      pacedCandidates.length > 0
        ? await store.batchHistory(
            historyQueries(pacedCandidates, now),
            pacedCandidates.map(({ match, fact }) => ({ agentId: match.agent.agentId, eventId: fact.id })),
          )
        : { histories: new Map<string, AgentHistory>(), existing: new Map<string, TriggerRunSlot>() };
    const rows: TriggerRunRow[] = [];
    const skips: ActivationSkipRecord[] = [];
    const decided: Array<{ candidate: Candidate; decision: ActivationDecision | null }> = [];
    const recorded: Array<{ slot: TriggerRunSlot; candidate: Candidate }> = [];
    for (const candidate of candidates) {
      const { match, fact, workspaceId } = candidate;
      const { agent } = match;
      const isPaced = paced.has(agent.agentId);
      // A run exists for this (agent, fact): a crash may have lost its job or its fact, so the
      // slot is taken again (it finds the run) instead of deciding anew.
      const found = existing.get(pairKey(agent.agentId, fact.id));
      if (found) {
        recorded.push({ slot: found, candidate });
        continue;
      }
      const history = isPaced ? (histories.get(agent.agentId) ?? emptyHistory()) : emptyHistory();
      const decision = this.options.guards.decide({
        now,
        workspace: { agentsPaused: candidate.paused },
        agent: { agentId: agent.agentId, enabled: agent.enabled, spec: agent.spec },
        fact: { causedBy: fact.causedBy },
        history: {
          alreadyActivated: false,
          lastActivationOfKindAt: history.lastActivationOfKindAt.get(fact.kind),
          recentActivationsAt: history.recentActivationsAt,
          queuedRuns: history.queuedRuns,
          lastDebounceArrivalAt: this.lastDebounceArrival.get(agent.agentId),
        },
      });
      if (reachedDebounce(decision)) this.lastDebounceArrival.set(agent.agentId, now);
      if (isPaced) this.options.metrics?.decided(decision);
      if (isPaced && decision.action === 'skip') {
        skips.push({ workspaceId, eventId: fact.id, agentId: agent.agentId, agentVersion: agent.version, reason: decision.reason });
        continue;
      }
      if (isPaced && decision.action === 'activate') {
        // Later facts of this batch see this activation, as they would had it been stored.
        history.lastActivationOfKindAt.set(fact.kind, now);
        history.recentActivationsAt.push(now);
        history.queuedRuns += 1;
        histories.set(agent.agentId, history);
      }
      rows.push({
        run: {
          id: newId(),
          workspaceId,
          agentId: agent.agentId,
          agentVersion: agent.version,
          origin: { type: 'trigger', eventId: fact.id, agentVersion: agent.version, triggerIndex: match.triggerIndex },
          eventId: fact.id,
          eventKind: fact.kind,
          eventSubject: fact.subject,
          status: decision.action === 'drop' ? 'dropped' : 'queued',
          reason: decision.action === 'drop' ? decision.reason : undefined,
          causedBy: fact.causedBy,
          depth: fact.causedBy?.depth ?? 0,
          sessionId: newId(),
        },
        // Not paced: the queue cap is the insert's to decide; a refusal is recorded only if no run exists.
        ...(isPaced ? {} : decision.action === 'skip' ? { probe: true } : { queueCap: agent.spec.flow.queueCap }),
      });
      decided.push({ candidate, decision: isPaced ? null : decision });
    }
    const slots = await store.recordTriggerRuns(rows);
    slots.forEach((slot, i) => {
      const { candidate, decision } = decided[i]!;
      if (slot) recorded.push({ slot, candidate });
      if (decision === null || (slot && !slot.created)) return;
      const { match, fact, workspaceId } = candidate;
      if (decision.action === 'skip') {
        skips.push({ workspaceId, eventId: fact.id, agentId: match.agent.agentId, agentVersion: match.agent.version, reason: decision.reason });
      }
      this.options.metrics?.decided(slot?.status === 'dropped' ? { action: 'drop', reason: ACTIVATION_DROP_REASONS.queueFull } : decision);
    });
    // The skips are recorded beside the runs (for GET /events/{id}/activations); a crash repeats the batch and records them again.
    await store.recordSkips(skips);
    return recorded;
  }

  /**
   * The agent and settings changes of the batch's workspaces up to its last
   * fact that are not applied yet, by workspace in seq order. Seqs are dense
   * per workspace, so a batch that holds every fact of that range holds its
   * changes too; any other range is read from PostgreSQL. The consumer group
   * gives each fact to one matcher replica (and the event-log's writers may
   * publish out of seq order), so the change facts of one replica's batches
   * are read here by every replica — each index then applies every change
   * where it falls in the fact order.
   */
  private async changesUpTo(batch: readonly MatcherFact[]): Promise<Map<string, Fact[]>> {
    const held = new Map<string, Map<number, Fact>>();
    for (const { fact, workspaceId } of batch) {
      const facts = held.get(workspaceId) ?? new Map<number, Fact>();
      facts.set(fact.seq, fact);
      held.set(workspaceId, facts);
    }
    const changes = new Map<string, Fact[]>();
    const toRead: Array<{ workspaceId: string; afterSeq: number; uptoSeq: number }> = [];
    for (const [workspaceId, facts] of held) {
      const afterSeq = this.changesApplied.get(workspaceId) ?? 0;
      const inRange = [...facts.values()].filter((fact) => fact.seq > afterSeq).sort((a, b) => a.seq - b.seq);
      const uptoSeq = inRange.at(-1)?.seq;
      if (uptoSeq === undefined) continue;
      if (inRange.length === uptoSeq - afterSeq) changes.set(workspaceId, inRange.filter((fact) => ORDERED_KINDS.has(fact.kind)));
      else toRead.push({ workspaceId, afterSeq, uptoSeq });
    }
    if (toRead.length === 0) return changes;
    for (const change of await this.options.store.changesBetween(toRead)) {
      const list = changes.get(change.workspaceId) ?? [];
      list.push(change.fact);
      changes.set(change.workspaceId, list);
    }
    return changes;
  }

  /** Applies the workspace's pending changes up to `seq`; true when there was one. */
  private async applyChanges(workspaceId: string, changes: Map<string, Fact[]>, seq: number): Promise<boolean> {
    const pending = changes.get(workspaceId) ?? [];
    let applied = false;
    while (pending.length > 0 && pending[0]!.seq <= seq) {
      const change = pending.shift()!;
      if (change.seq <= (this.changesApplied.get(workspaceId) ?? 0)) continue;
      if (change.kind === PARKED_KIND) {
        // Not a change of what facts match: the waits of the workspace are read again.
        this.options.waits?.parked(workspaceId);
        continue;
      }
      if (change.kind === WORKSPACE_FACT_KINDS.settingsChanged) this.applySettings(workspaceId, change);
      else if (change.subject.type === 'teammate') await this.reloadTeammate(change);
      else await this.reloadAgent(change);
      this.changesApplied.set(workspaceId, change.seq);
      applied = true;
    }
    if (seq > (this.changesApplied.get(workspaceId) ?? 0)) this.changesApplied.set(workspaceId, seq);
    return applied;
  }

  /** The kill switch as the settings fact states it, at its place in the fact order. */
  private applySettings(workspaceId: string, fact: Fact): void {
    if ((fact.payload as { agentsPaused?: unknown }).agentsPaused === true) this.paused.add(workspaceId);
    else this.paused.delete(workspaceId);
  }

  /**
   * Applies a `teammate.*` fact: a spawned teammate's watch is indexed (a watch
   * never changes; the row is read whether or not it was stopped since — its
   * own `teammate.stopped` comes later in the fact order), a stopped one removed.
   */
  private async reloadTeammate(fact: Fact): Promise<void> {
    if (fact.kind === TEAMMATE_FACT_KINDS.stopped) {
      this.options.index.removeTeammate(fact.subject.id);
      return;
    }
    const teammate = await this.options.store.loadTeammate(fact.subject.id);
    if (teammate) this.options.index.upsertTeammate(teammate);
  }

  /**
   * Applies an `agent.*` fact as of its place in the fact order: the version it
   * names for runs (its pin, else its latest; versions are immutable) with the
   * enabled flag it states. Reading the agent's current row instead would let a
   * later change (an enable after a disable) act on facts that came before it.
   */
  private async reloadAgent(fact: Fact): Promise<void> {
    const agentId = fact.subject.id;
    const { version, enabled, pinnedVersion } = fact.payload as { version?: unknown; enabled?: unknown; pinnedVersion?: unknown };
    if (fact.kind === 'agent.deleted') {
      this.options.index.remove(agentId);
      return;
    }
    const agent =
      typeof version === 'number' && typeof enabled === 'boolean'
        ? // The version runs use as of this fact: its pin when it states one (decision 0046).
          await this.options.store.loadAgentVersion(agentId, runVersionOf({ version, pinnedVersion: typeof pinnedVersion === 'number' ? pinnedVersion : null }), enabled)
        : await this.options.store.loadAgent(agentId);
    if (agent) this.options.index.upsert(typeof version === 'number' ? { ...agent, latestVersion: version } : agent);
    else this.options.index.remove(agentId);
  }
}

/** One (agent, fact) match waiting for its decision, with the kill switch as of its fact. */
interface Candidate {
  match: TriggerMatch;
  fact: Fact;
  workspaceId: string;
  paused: boolean;
}

function emptyHistory(): AgentHistory {
  return { lastActivationOfKindAt: new Map(), recentActivationsAt: [], queuedRuns: 0 };
}

/** The agents of these candidates whose guards read their past activations: cooldown, throttle or debounce on. */
function pacedAgents(candidates: readonly Candidate[]): Set<string> {
  const paced = new Set<string>();
  for (const { match } of candidates) {
    const { flow } = match.agent.spec;
    if (flow.cooldownMs > 0 || flow.throttle !== undefined || flow.debounceMs > 0) paced.add(match.agent.agentId);
  }
  return paced;
}

/** One history query per matched agent, asking only what its guards use. */
function historyQueries(candidates: readonly Candidate[], now: number): AgentHistoryQuery[] {
  const byAgent = new Map<string, { agentId: string; cooldownKinds: Set<string>; throttleSince?: Date; queueCap: number }>();
  for (const { match, fact } of candidates) {
    const { agentId, spec } = match.agent;
    let query = byAgent.get(agentId);
    if (!query) {
      const throttle = spec.flow.throttle;
      query = { agentId, cooldownKinds: new Set(), queueCap: spec.flow.queueCap, throttleSince: throttle ? new Date(now - throttle.periodMs) : undefined };
      byAgent.set(agentId, query);
    }
    if (spec.flow.cooldownMs > 0) query.cooldownKinds.add(fact.kind);
  }
  return [...byAgent.values()].map((query) => ({ ...query, cooldownKinds: [...query.cooldownKinds] }));
}
