import { AgentFlowSchema, MAX_MAILBOX_MESSAGE_CHARS, type ActivationJob, type Fact, type MailboxEnvelope } from '@switchyard/contracts';
import { derivedId, deliverToTeammate, type DeliveryCommitPort } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import type { ActivationDecision, ActivationGuards } from './activation-guards';
import type { WatchMatch } from './agent-index';
import { pairKey, type ActivationSink } from './ports';

/** One (teammate, fact) match waiting for its decision, with the kill switch as of its fact. */
export interface BridgeCandidate {
  match: WatchMatch;
  fact: Fact;
  workspaceId: string;
  paused: boolean;
}

/** A delivery recorded before (a repeat of its fact): the turn it queued, and whether that turn is still queued. */
export interface RecordedDelivery {
  runId: string | null;
  runQueued: boolean;
}

/** What the guards need to know of a batch's teammates, read in one round trip. */
export interface BridgeHistory {
  /** Deliveries that exist for the batch's (teammate, fact) pairs, by `pairKey(teammateId, eventId)`. */
  delivered: Map<string, RecordedDelivery>;
  /** Last delivery by `pairKey(teammateId, kind)`, for the kinds whose watch has a cooldown (ms since the epoch). */
  lastOfKind: Map<string, number>;
  /** Candidates stopped since the index matched them. */
  stopped: Set<string>;
  /** The teammate each cause run is a turn of (by run id), for the runs that are teammates' turns. */
  turnOf: Map<string, string>;
}

/** The bridge's reads and its commit on the system of record. */
export interface BridgeStore extends DeliveryCommitPort {
  history(query: {
    pairs: ReadonlyArray<{ teammateId: string; eventId: string }>;
    cooldownKinds: ReadonlyArray<{ teammateId: string; kind: string }>;
    causeRuns: readonly string[];
  }): Promise<BridgeHistory>;
}

/** Posts to a resident mailbox once per envelope id (SessionMailbox.postResidentOnce). */
export interface OnceMailbox {
  postResidentOnce(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'>;
}

/** Constructor arguments of EventBridge. */
export interface EventBridgeOptions {
  store: BridgeStore;
  mailbox: OnceMailbox;
  guards: ActivationGuards;
  activations: ActivationSink;
  log: Logger;
  metrics?: { decided(decision: ActivationDecision): void };
  clock?: () => number;
}

/** A teammate is paced by its watch's cooldown only: no throttle, debounce or queue (its turns coalesce). */
const TEAMMATE_FLOW = AgentFlowSchema.parse({ queueCap: 10_000 });

/**
 * The event bridge (decision 0035): delivers the facts a live teammate
 * watches to its mailbox as event messages, waking it when idle — the same
 * delivery as a person's message (deliverToTeammate). The agents' guards
 * decide (ActivationGuards): kill switch, stopped, self-cause (a fact caused by
 * one of the teammate's own turns), causation depth, the watch's cooldown.
 *
 * At most one delivery per (teammate, fact), across repeats and crashes: the
 * message id is derived from both, the post is once per message id (a repeat
 * learns whether the first post woke the teammate), and the row in
 * `teammate_deliveries` is written with the wake and `message.sent`, so a
 * repeat after it finds the row and only re-enqueues a turn still queued.
 */
export class EventBridge {
  private readonly clock: () => number;

  constructor(private readonly options: EventBridgeOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Decides and delivers, in fact order; returns how many matches the guards skipped. */
  async deliver(matched: readonly BridgeCandidate[]): Promise<{ skipped: number }> {
    const candidates = matched.filter(({ fact }) => !isEventDelivery(fact));
    if (candidates.length === 0) return { skipped: 0 };
    const { store, guards, activations, log } = this.options;
    const now = this.clock();
    const history = await store.history(historyQuery(candidates));
    const requeue: ActivationJob[] = [];
    let skipped = 0;
    for (const candidate of candidates) {
      const { match, fact, workspaceId } = candidate;
      const mate = match.teammate;
      const recorded = history.delivered.get(pairKey(mate.teammateId, fact.id));
      if (recorded) {
        // A repeat: the delivery is recorded; a crash may have lost its turn's job.
        if (recorded.runId && recorded.runQueued) requeue.push({ schemaVersion: 1, runId: recorded.runId, workspaceId, agentId: mate.agentId });
        continue;
      }
      const decision = decideDelivery(guards, candidate, history, now);
      this.options.metrics?.decided(decision);
      if (decision.action !== 'activate') {
        skipped += 1;
        log.debug({ teammateId: mate.teammateId, eventId: fact.id, decision }, 'watched fact not delivered');
        continue;
      }
      // Later facts of this batch see this delivery, as they would had it been stored.
      history.lastOfKind.set(pairKey(mate.teammateId, fact.kind), now);
      await this.deliverOne(candidate);
    }
    await activations.enqueue(requeue);
    return { skipped };
  }

  private async deliverOne({ match, fact, workspaceId }: BridgeCandidate): Promise<void> {
    const mate = match.teammate;
    const envelope: MailboxEnvelope = {
      schemaVersion: 1,
      id: derivedId('teammate-event', mate.teammateId, fact.id),
      sessionId: mate.sessionId,
      from: { type: 'event', eventId: fact.id, kind: fact.kind, subject: fact.subject },
      content: factContent(fact),
      sentAt: new Date(this.clock()).toISOString(),
    };
    const { store, activations, log } = this.options;
    const { woke } = await deliverToTeammate(
      { mailbox: { postResident: (posted) => this.options.mailbox.postResidentOnce(posted) }, store, activations },
      {
        author: { workspaceId, workspaceSlug: fact.workspace, actor: { type: 'system', id: 'switchyard' } },
        correlationId: fact.id,
        mate: { id: mate.teammateId, name: mate.name, agentId: mate.agentId, sessionId: mate.sessionId },
        envelope,
        causedBy: fact.causedBy ?? null,
      },
    );
    log.info({ teammateId: mate.teammateId, eventId: fact.id, kind: fact.kind, woke }, 'watched fact delivered');
  }
}

/**
 * The agents' guards on one (teammate, fact) match: the teammate is the
 * identity the self-cause guard compares — a fact caused by one of its own
 * turns is its own, one caused by another teammate's turn (even of the same
 * agent) is not — and it is paced by its watch entry's cooldown only.
 */
export function decideDelivery(guards: ActivationGuards, candidate: BridgeCandidate, history: BridgeHistory, now: number): ActivationDecision {
  const { match, fact } = candidate;
  const mate = match.teammate;
  const causedBy = fact.causedBy;
  return guards.decide({
    now,
    workspace: { agentsPaused: candidate.paused },
    agent: { agentId: mate.teammateId, enabled: !history.stopped.has(mate.teammateId), spec: { allowSelfCause: false, flow: { ...TEAMMATE_FLOW, cooldownMs: match.cooldownMs } } },
    fact: { causedBy: causedBy && { agentId: history.turnOf.get(causedBy.runId) ?? causedBy.agentId, depth: causedBy.depth } },
    history: { alreadyActivated: false, lastActivationOfKindAt: history.lastOfKind.get(pairKey(mate.teammateId, fact.kind)), recentActivationsAt: [], queuedRuns: 0 },
  });
}

/**
 * What the teammate reads (rendered as data under `[event <kind> — <subject>]`):
 * the fact as JSON; a payload too large for a message is left out, said so.
 */
export function factContent(fact: Fact): string {
  const { id, seq, kind, subject, actor, causedBy, payload, ts } = fact;
  const full = JSON.stringify({ id, seq, kind, subject, actor, causedBy, payload, ts });
  if (full.length <= MAX_MAILBOX_MESSAGE_CHARS) return full;
  return JSON.stringify({ id, seq, kind, subject, actor, causedBy, payloadOmitted: 'larger than a message', ts });
}

/**
 * A `message.sent` recording one of the bridge's own deliveries: never
 * delivered again, or two teammates watching `message.sent` would feed each
 * other for ever (such a fact is caused like the fact it delivered, not deeper).
 */
function isEventDelivery(fact: Fact): boolean {
  return fact.kind === 'message.sent' && fact.payload.from === 'event';
}

function historyQuery(candidates: readonly BridgeCandidate[]): Parameters<BridgeStore['history']>[0] {
  const kinds = new Map<string, { teammateId: string; kind: string }>();
  const causeRuns = new Set<string>();
  for (const { match, fact } of candidates) {
    if (match.cooldownMs > 0) kinds.set(pairKey(match.teammate.teammateId, fact.kind), { teammateId: match.teammate.teammateId, kind: fact.kind });
    if (fact.causedBy) causeRuns.add(fact.causedBy.runId);
  }
  return {
    pairs: candidates.map(({ match, fact }) => ({ teammateId: match.teammate.teammateId, eventId: fact.id })),
    cooldownKinds: [...kinds.values()],
    causeRuns: [...causeRuns],
  };
}
