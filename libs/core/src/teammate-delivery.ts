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

/** Where the queued turn's job goes (BullMQ `activations`, job id = run id). */
export interface DeliveryActivationPort {
  enqueue(jobs: readonly ActivationJob[]): Promise<void>;
}

/** What deliverToTeammate needs. */
export interface TeammateDeliveryPorts {
  mailbox: ResidentMailboxPort;
  store: DeliveryCommitPort;
  activations: DeliveryActivationPort;
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
 * job. Rejects when the post or the commit fails (nothing is claimed delivered).
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
  const runId = await ports.store.commitDelivery({
    workspaceId: author.workspaceId,
    mate,
    envelope,
    wake: woke ? { runId: newId(), causedBy } : null,
    facts,
  });
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
