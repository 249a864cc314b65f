import type { ActivationJob, CausedBy, IngestItem, MailboxEnvelope, MessageSentPayload } from '@switchyard/contracts';
import { newId } from './ids';
import { messageSentFact, type ChangeAuthor } from './platform-facts';

/** The teammate a message goes to, as a delivery needs it. */
export interface DeliveryRecipient {
  /** The roster row's id. */
  id: string;
  name: string;
  agentId: string;
  sessionId: string;
}

/** Posts to a resident session's mailbox (SessionMailbox.postResident, or postResidentOnce for a poster that may repeat). */
export interface ResidentMailboxPort {
  postResident(envelope: MailboxEnvelope): Promise<'woke' | 'delivered'>;
}

/** What a delivery commits after its post, in one transaction. */
export interface DeliveryCommit {
  workspaceId: string;
  mate: DeliveryRecipient;
  envelope: MailboxEnvelope;
  /** The post found the teammate idle: queue its next turn (SQL `teammate_wake`) with this id. */
  wake: { runId: string; causedBy: CausedBy | null } | null;
  /** The delivery's `message.sent` fact. */
  facts: IngestItem[];
}

/** Where a delivery is recorded: the wake (when it woke) and its facts, in one transaction. */
export interface DeliveryCommitPort {
  /** Commits it; the id of the turn it queued, or null (none was needed, one was queued already, or the teammate is stopped). */
  commitDelivery(commit: DeliveryCommit): Promise<string | null>;
}

/**
 * Where the queued turn's job goes (BullMQ `activations`, job id = run id, through libs/runs
 * RunWaker): it rejects only for a sender that repeats (the matcher), else a lost job is left to
 * the runner's sweep.
 */
export interface DeliveryActivationPort {
  enqueue(jobs: readonly ActivationJob[]): Promise<void>;
}

/** Where a delivery's fact goes when its commit failed: the `ingest` stream (RedisIngestWriter.accept), the store the post just reached. */
export interface DeliveryFactSinkPort {
  accept(items: readonly IngestItem[]): Promise<unknown>;
}

/** What deliverToTeammate needs. */
export interface TeammateDeliveryPorts {
  mailbox: ResidentMailboxPort;
  store: DeliveryCommitPort;
  activations: DeliveryActivationPort;
  /**
   * For a sender that must not repeat a delivered message (a person, a run):
   * once the post is in the mailbox, a failed commit records the fact here and
   * leaves the wake to the runner's sweep instead of failing the delivery.
   * Without it (an at-least-once consumer that repeats: the matcher) a failed
   * commit rejects.
   */
  facts?: DeliveryFactSinkPort;
  /** Told what failed after the post (the commit, the job, the fact's fallback): logged; the message is delivered all the same. */
  onDeferred?: (what: 'commit' | 'fact', error: unknown) => void;
}

/** One message to deliver. */
export interface TeammateDeliveryInput {
  author: ChangeAuthor;
  correlationId: string;
  mate: DeliveryRecipient;
  envelope: MailboxEnvelope;
  /** The wake's cause: the sender's run (one deeper), the delivered fact's cause, or none (a person). */
  causedBy: CausedBy | null;
}

/**
 * Delivers one message to a teammate (decision 0035), for every sender — a
 * person or a run (the gateway), a watched fact (the matcher's event bridge):
 * post to its resident mailbox; when the post found it idle (the one wake),
 * queue its next turn under its lane's lock with the `message.sent` fact in
 * the same transaction, else record the fact alone; then enqueue the turn's
 * job. Rejects when the post fails (nothing was delivered). Once the post is
 * in the mailbox the message is delivered and a turn will read it — a woken
 * mailbox is in the open set the runner's sweep wakes, a queued turn whose job
 * was lost is claimed by the same sweep — so with a `facts` sink a failed
 * commit or job does not fail the delivery (decision 0035).
 */
export async function deliverToTeammate(ports: TeammateDeliveryPorts, input: TeammateDeliveryInput): Promise<{ woke: boolean; runId: string | null }> {
  const { author, mate, envelope, causedBy } = input;
  const woke = (await ports.mailbox.postResident(envelope)) === 'woke';
  const payload: MessageSentPayload = {
    messageId: envelope.id,
    sessionId: mate.sessionId,
    teammate: mate.name,
    from: envelope.from.type === 'teammate' ? 'agent' : envelope.from.type,
    senderId: senderId(envelope.from),
    chars: envelope.content.length,
    woke,
  };
  const facts = [{ fact: messageSentFact(author, payload, causedBy), correlationId: input.correlationId }];
  const commit: DeliveryCommit = { workspaceId: author.workspaceId, mate, envelope, wake: woke ? { runId: newId(), causedBy } : null, facts };
  let runId: string | null;
  try {
    runId = await ports.store.commitDelivery(commit);
  } catch (error) {
    if (!ports.facts) throw error;
    ports.onDeferred?.('commit', error);
    // The fact's id is the outbox row's: had the commit gone through after all, the event-log stores it once.
    await ports.facts.accept(facts).catch((failed: unknown) => ports.onDeferred?.('fact', failed));
    return { woke, runId: null };
  }
  // The port decides what a lost job does (libs/runs RunWaker): a sender that must not repeat leaves it to the sweep, the matcher rejects and repeats.
  if (runId) await ports.activations.enqueue([{ schemaVersion: 1, runId, workspaceId: author.workspaceId, agentId: mate.agentId }]);
  return { woke: runId !== null, runId };
}

/** Who sent it: the member, the agent, the fact or the system reason. */
function senderId(from: MailboxEnvelope['from']): string {
  switch (from.type) {
    case 'user':
      return from.userId;
    case 'agent':
    case 'teammate':
      return from.agentId;
    case 'event':
      return from.eventId;
    case 'system':
      return from.reason;
  }
}
