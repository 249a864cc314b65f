import { AppError, ErrorCode, MAX_ACTIVE_TEAMMATES, type MailboxEnvelope, type MailboxSender, type PostTeammateMessageResponse, type SpawnTeammateRequest, type Teammate } from '@switchyard/contracts';
import { messageSentFact, newId, teammateFact } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import type { ActivationSink, AgentStore, Mailbox, Principal, SteeringStore, TeammateStore } from '../ports';

/** What the teammate commands need. */
export interface TeammateDeps {
  teammates: TeammateStore;
  agents: AgentStore;
  mailbox: Mailbox;
  activations: ActivationSink;
  steering: SteeringStore;
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
    { ...mate, workspaceId: principal.workspaceId, watch: request.watch, createdBy: principal.userId },
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
 * Delivers a message to a teammate's mailbox and, when the teammate was idle,
 * queues its next turn (the one wake: decision 0035). The post and the close of
 * a turn's last drain are one Redis script each on the same keys, so a message
 * is either read by the running turn or reopens the mailbox and wakes; any
 * number of messages while a turn is queued or running coalesce. Every delivery
 * records a `message.sent` fact (ids and sizes, never the content).
 */
export async function deliverToTeammate(
  deps: TeammateDeps,
  ctx: TeammateCommandContext,
  mate: Teammate,
  from: MailboxSender,
  content: string,
): Promise<PostTeammateMessageResponse> {
  if (mate.status === 'stopped') throw new AppError(ErrorCode.TEAMMATE_STOPPED, 'the teammate is stopped: nothing would read the message', { name: mate.name });
  const envelope: MailboxEnvelope = { schemaVersion: 1, id: newId(), sessionId: mate.sessionId, from, content, sentAt: new Date().toISOString() };
  let posted: 'woke' | 'delivered';
  try {
    posted = await deps.mailbox.postResident(envelope);
  } catch (error) {
    throw new AppError(ErrorCode.UNAVAILABLE, 'the message could not be delivered: try again', { name: mate.name }, { cause: error });
  }
  const woke = posted === 'woke';
  const fact = messageSentFact(changeAuthorOf(ctx.principal), {
    messageId: envelope.id,
    sessionId: mate.sessionId,
    teammate: mate.name,
    from: from.type === 'teammate' ? 'agent' : from.type,
    senderId: senderId(from),
    chars: content.length,
    woke,
  });
  const items = [{ fact, correlationId: ctx.correlationId }];
  if (!woke) await deps.teammates.record(items);
  const runId = woke ? await deps.teammates.wake(ctx.principal.workspaceId, mate.sessionId, newId(), items) : null;
  if (runId) await deps.activations.enqueue([{ schemaVersion: 1, runId, workspaceId: ctx.principal.workspaceId, agentId: mate.agentId }]);
  return { id: envelope.id, woke: runId !== null };
}

function senderId(from: MailboxSender): string {
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

/** A person's message to a teammate (`POST /teammates/{name}/messages`). */
export async function postTeammateMessage(deps: TeammateDeps, ctx: TeammateCommandContext, name: string, content: string): Promise<PostTeammateMessageResponse> {
  const mate = await getTeammate(deps, ctx.principal, name);
  const userName = (await deps.steering.userName(ctx.principal.userId))?.slice(0, 256);
  const from: MailboxSender = userName ? { type: 'user', userId: ctx.principal.userId, name: userName } : { type: 'user', userId: ctx.principal.userId };
  return deliverToTeammate(deps, ctx, mate, from, content);
}
