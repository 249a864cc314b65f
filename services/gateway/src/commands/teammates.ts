import { AppError, ErrorCode, type CausedBy, MAX_ACTIVE_TEAMMATES, MAX_MESSAGES_PER_RUN, PARENT_ADDRESS, type MailboxEnvelope, type MailboxSender, type PostTeammateMessageResponse, type SpawnTeammateRequest, type Teammate } from '@switchyard/contracts';
import { deliverToTeammate as deliver, messageSentFact, newId, teammateFact } from '@switchyard/core';
import { resolveRecipients, unreachable } from './message-recipients';
import type { Logger } from '@switchyard/logging';
import { changeAuthorOf } from '../change-author';
import type { AgentStore } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { IngestWriter } from '../fact-ports';
import type { Mailbox, SteeringStore } from '../mailbox-ports';
import type { ActivationSink, RunRecord, RunStore } from '../run-ports';
import type { DeliveryTarget, TeammateStore } from '../teammate-ports';

/** What the teammate commands need. */
export interface TeammateDeps {
  teammates: TeammateStore;
  agents: Pick<AgentStore, 'get'>;
  mailbox: Mailbox;
  activations: ActivationSink;
  steering: SteeringStore;
  runs: Pick<RunStore, 'get'>;
  /** Where a delivered message's fact goes when its commit failed (the `ingest` stream). */
  ingest: Pick<IngestWriter, 'accept'>;
  log: Logger;
}

/** A command's caller and the request's correlation id (its facts carry it). */
export interface TeammateCommandContext {
  principal: Principal;
  correlationId: string;
}

const notFound = (name: string) => new AppError(ErrorCode.TEAMMATE_NOT_FOUND, 'no such teammate in this workspace', { name });

/**
 * Spawns a teammate (decision 0035): a roster row with a fresh session, made
 * resident and idle — it costs nothing until a message or a watched fact wakes it.
 */
export async function spawnTeammate(deps: TeammateDeps, ctx: TeammateCommandContext, request: SpawnTeammateRequest): Promise<Teammate> {
  const { principal } = ctx;
  const agent = await deps.agents.get(principal.workspaceId, request.agentId);
  if (!agent) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: request.agentId });
  if (!agent.enabled) throw new AppError(ErrorCode.AGENT_DISABLED, 'the agent is disabled: enable it first', { id: request.agentId });
  const active = (await deps.teammates.list(principal.workspaceId)).filter((mate) => mate.status !== 'stopped');
  if (active.length >= MAX_ACTIVE_TEAMMATES) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, `a workspace has at most ${MAX_ACTIVE_TEAMMATES} teammates that are not stopped`, [
      { code: 'too_many_teammates', path: ['name'], message: 'stop a teammate first' },
    ]);
  }
  const mate = { id: newId(), name: request.name, agentId: agent.id, sessionId: newId(), team: request.team ?? null };
  // Resident before the row exists: no message can reach a session that is not yet addressable.
  await deps.mailbox.makeResident(mate.sessionId);
  const fact = teammateFact(changeAuthorOf(principal), 'teammate.spawned', mate);
  const created = await deps.teammates.create(
    { ...mate, workspaceId: principal.workspaceId, watch: request.watch, memory: request.memory ?? null, createdBy: principal.userId },
    [{ fact, correlationId: ctx.correlationId }],
  );
  if (created === 'name_taken') throw new AppError(ErrorCode.TEAMMATE_NAME_TAKEN, 'a teammate of this workspace already has that name', { name: request.name });
  return (await deps.teammates.get(principal.workspaceId, request.name))!;
}

/** Stops a teammate for good: its queued turn cancelled, its running turn asked to stop, its mailbox retired. */
export async function stopTeammate(deps: TeammateDeps, ctx: TeammateCommandContext, name: string): Promise<Teammate> {
  const { principal } = ctx;
  const before = await getTeammate(deps, principal, name);
  const fact = teammateFact(changeAuthorOf(principal), 'teammate.stopped', before);
  const result = await deps.teammates.stop(principal.workspaceId, name, () => [{ fact, correlationId: ctx.correlationId }]);
  if (result === 'not_found') throw notFound(name);
  if (result === 'stopped') await deps.mailbox.retire(before.sessionId);
  return (await deps.teammates.get(principal.workspaceId, name))!;
}

/** The teammate of this workspace with that name; TEAMMATE_NOT_FOUND otherwise. */
export async function getTeammate(deps: Pick<TeammateDeps, 'teammates'>, principal: Principal, name: string): Promise<Teammate> {
  const mate = await deps.teammates.get(principal.workspaceId, name);
  if (!mate) throw notFound(name);
  return mate;
}

/**
 * Delivers a message to a teammate and, when it was idle, queues its next turn
 * (the one wake: decision 0035) — the delivery every sender shares
 * (deliverToTeammate in libs/core; the matcher's event bridge uses it too).
 * A stopped teammate refuses it; a Redis that does not answer is UNAVAILABLE.
 * Once the post is in the mailbox the answer is a success: a commit or job
 * that fails after it is left to the runner's sweep (a retry would deliver the
 * message twice).
 */
export async function deliverToTeammate(
  deps: TeammateDeps,
  ctx: TeammateCommandContext,
  mate: DeliveryTarget,
  from: MailboxSender,
  content: string,
  causedBy?: CausedBy,
): Promise<PostTeammateMessageResponse> {
  if (mate.stopped) throw new AppError(ErrorCode.TEAMMATE_STOPPED, 'the teammate is stopped: nothing would read the message', { name: mate.name });
  const envelope: MailboxEnvelope = { schemaVersion: 1, id: newId(), sessionId: mate.sessionId, from, content, sentAt: new Date().toISOString() };
  const mailbox = {
    postResident: async (posted: MailboxEnvelope) => {
      try {
        return await deps.mailbox.postResident(posted);
      } catch (error) {
        throw new AppError(ErrorCode.UNAVAILABLE, 'the message could not be delivered: try again', { name: mate.name }, { cause: error });
      }
    },
  };
  const onDeferred = (what: string, error: unknown) =>
    deps.log.warn({ err: error, what, messageId: envelope.id, sessionId: mate.sessionId }, 'message delivered; its wake is left to the runner sweep');
  const { woke } = await deliver(
    // A delivered message's turn stands whatever happens to its job: a lost one is the runner's sweep's.
    { mailbox, store: deps.teammates, activations: { enqueue: async (jobs) => void (await deps.activations.wakeOrLeaveToSweep(jobs)) }, facts: deps.ingest, onDeferred },
    { author: changeAuthorOf(ctx.principal), correlationId: ctx.correlationId, mate, envelope, causedBy: causedBy ?? null },
  );
  return { id: envelope.id, woke };
}

/** A person's message to a teammate (`POST /teammates/{name}/messages`). */
export async function postTeammateMessage(deps: TeammateDeps, ctx: TeammateCommandContext, name: string, content: string): Promise<PostTeammateMessageResponse> {
  // The roster row alone, not its turns' aggregates: this is every message's path.
  const mate = await deps.teammates.deliveryTarget(ctx.principal.workspaceId, name);
  if (!mate) throw notFound(name);
  const userName = (await deps.steering.userName(ctx.principal.userId))?.slice(0, 256);
  const from: MailboxSender = userName ? { type: 'user', userId: ctx.principal.userId, name: userName } : { type: 'user', userId: ctx.principal.userId };
  return deliverToTeammate(deps, ctx, mate, from, content);
}

/**
 * `send_message {to, content}` (decisions 0035, 0059): one envelope per recipient,
 * attributed to the calling agent's run (or the person). A teammate is delivered
 * to like a person's message (woken when idle); `team:<name>` is each of its live
 * members once; a delegated child (its run id) or the caller's `parent` gets the
 * envelope in its run's session mailbox, read at its next step. Every recipient is
 * resolved first (resolveRecipients): one it cannot reach refuses the whole call and
 * nothing is delivered. An agent's run sends at most MAX_MESSAGES_PER_RUN.
 */
export async function sendMessage(
  deps: TeammateDeps & { maxCausationDepth: number },
  ctx: TeammateCommandContext,
  input: { to: string | string[]; content: string },
): Promise<{ delivered: Array<{ to: string; id: string; woke: boolean }> }> {
  const { principal } = ctx;
  const targets = [...new Set(Array.isArray(input.to) ? input.to : [input.to])];
  const roster = await deps.teammates.list(principal.workspaceId);
  const caller = principal.agent;
  // The caller's own teammate, when its run is one of a teammate's turns (its session is the teammate's).
  const callerRun = caller ? await deps.runs.get(principal.workspaceId, caller.runId) : null;
  const own = callerRun ? roster.find((mate) => mate.sessionId === callerRun.sessionId) : undefined;
  const recipients = await resolveRecipients(
    { roster, ownSession: own?.sessionId ?? null, callerRun, runById: (id) => deps.runs.get(principal.workspaceId, id) },
    targets,
  );
  let from: MailboxSender;
  let causedBy: CausedBy | undefined;
  if (caller) {
    if (caller.depth + 1 >= deps.maxCausationDepth) {
      throw new AppError(ErrorCode.CAUSATION_DEPTH_EXCEEDED, 'a turn this message wakes would be deeper than the causation depth cap', { depth: caller.depth + 1, max: deps.maxCausationDepth });
    }
    const agent = await deps.agents.get(principal.workspaceId, caller.agentId);
    from = { type: 'agent', agentId: caller.agentId, name: agent?.spec.name ?? caller.agentId, runId: caller.runId, ...(own ? { teammate: own.name } : {}) };
    causedBy = { runId: caller.runId, agentId: caller.agentId, depth: caller.depth + 1 };
    const count = await deps.mailbox.countSent(caller.runId);
    if (count + recipients.length - 1 > MAX_MESSAGES_PER_RUN) {
      throw new AppError(ErrorCode.MESSAGE_LIMIT_EXCEEDED, `a run sends at most ${MAX_MESSAGES_PER_RUN} messages`, { max: MAX_MESSAGES_PER_RUN });
    }
    for (let extra = 1; extra < recipients.length; extra++) await deps.mailbox.countSent(caller.runId);
  } else {
    const userName = (await deps.steering.userName(principal.userId))?.slice(0, 256);
    from = userName ? { type: 'user', userId: principal.userId, name: userName } : { type: 'user', userId: principal.userId };
  }
  const delivered: Array<{ to: string; id: string; woke: boolean }> = [];
  // Runs first: a run's mailbox can close under the post (it just ended), which refuses the call before any teammate is messaged.
  for (const recipient of recipients) {
    if (recipient.kind === 'run') delivered.push({ to: recipient.relation === 'parent' ? PARENT_ADDRESS : recipient.run.id, ...(await deliverToRun(deps, ctx, recipient.run, from, input.content, causedBy)) });
  }
  for (const recipient of recipients) {
    if (recipient.kind === 'teammate') delivered.push({ to: recipient.mate.name, ...(await deliverToTeammate(deps, ctx, { ...recipient.mate, stopped: false }, from, input.content, causedBy)) });
  }
  return { delivered };
}

/**
 * A message to a delegated run (child or parent, decision 0059): posted to its
 * session's mailbox, which its loop drains at its next step — no wake, the run
 * is queued or running. A mailbox its run closed is the typed soft error naming
 * the run's state. Its `message.sent` goes through the `ingest` stream, after the post.
 */
async function deliverToRun(deps: TeammateDeps, ctx: TeammateCommandContext, run: RunRecord, from: MailboxSender, content: string, causedBy?: CausedBy) {
  const envelope: MailboxEnvelope = { schemaVersion: 1, id: newId(), sessionId: run.sessionId, from, content, sentAt: new Date().toISOString() };
  let posted: 'delivered' | 'closed';
  try {
    posted = await deps.mailbox.post(envelope);
  } catch (error) {
    throw new AppError(ErrorCode.UNAVAILABLE, 'the message could not be delivered: try again', { to: run.id }, { cause: error });
  }
  if (posted === 'closed') {
    const now = await deps.runs.get(ctx.principal.workspaceId, run.id);
    throw unreachable(run.id, 'ended', [], { finalState: now?.status ?? run.status });
  }
  const payload = { messageId: envelope.id, sessionId: run.sessionId, from: from.type === 'teammate' ? 'agent' : from.type, senderId: from.type === 'user' ? from.userId : from.type === 'agent' || from.type === 'teammate' ? from.agentId : 'system', chars: content.length, woke: false } as const;
  await deps.ingest
    .accept([{ fact: messageSentFact(changeAuthorOf(ctx.principal), payload, causedBy), correlationId: ctx.correlationId }])
    .catch((error: unknown) => deps.log.warn({ err: error, messageId: envelope.id, runId: run.id }, 'message delivered; its message.sent fact was not recorded'));
  return { id: envelope.id, woke: false };
}
