import { AppError, ErrorCode, isTerminalRunStatus, MAX_MESSAGE_RECIPIENTS, PARENT_ADDRESS, TEAM_ADDRESS_PREFIX, type MessageUnreachableReason, type Teammate } from '@switchyard/contracts';
import type { RunRecord } from '../run-ports';

/** Where one `send_message` delivery goes: a teammate's resident mailbox, or a delegated run's session (decision 0059). */
export type Recipient = { kind: 'teammate'; mate: Teammate } | { kind: 'run'; run: RunRecord; relation: 'child' | 'parent' };

/** What resolving needs: the roster, the caller's run (an agent's token), and a run by id in the caller's workspace. */
export interface RecipientScope {
  roster: readonly Teammate[];
  /** The caller's own teammate session, when its run is a teammate's turn. */
  ownSession: string | null;
  callerRun: RunRecord | null;
  runById(id: string): Promise<RunRecord | null>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The refusal of the whole call: nothing is delivered to anyone. */
export function unreachable(to: string, reason: MessageUnreachableReason, reachable: string[], extra: Record<string, unknown> = {}): AppError {
  return new AppError(ErrorCode.MESSAGE_RECIPIENT_UNREACHABLE, `cannot message ${to} (${reason}): nothing was sent`, { to, reason, reachable, ...extra });
}

/** The teammate `to` names in this workspace: a name, a session id or an agent id (its one live teammate). */
function resolveTeammate(roster: readonly Teammate[], to: string, ownSession: string | null): Teammate | MessageUnreachableReason {
  const byName = roster.find((mate) => mate.name === to || mate.sessionId === to);
  const candidates = byName ? [byName] : roster.filter((mate) => mate.agentId === to && mate.status !== 'stopped');
  if (candidates.length === 0) return roster.some((mate) => mate.agentId === to) ? 'stopped' : 'unknown';
  if (candidates.length > 1) return 'ambiguous';
  const mate = candidates[0]!;
  if (mate.status === 'stopped') return 'stopped';
  if (mate.sessionId === ownSession) return 'self';
  return mate;
}

/** `team:<name>`: its live members but the caller's own teammate; `unknown` when no teammate has the team, `team_empty` when none is left. */
function resolveTeam(roster: readonly Teammate[], team: string, ownSession: string | null): Teammate[] | MessageUnreachableReason {
  const members = roster.filter((mate) => mate.team === team);
  if (members.length === 0) return 'unknown';
  const live = members.filter((mate) => mate.status !== 'stopped' && mate.sessionId !== ownSession);
  return live.length === 0 ? 'team_empty' : live;
}

/** The caller's parent (`parent` or its id) or a child it delegated to (its run id), in the caller's workspace. */
async function resolveRelative(scope: RecipientScope, to: string): Promise<Recipient | null> {
  const caller = scope.callerRun;
  if (!caller) return null;
  const parentId = caller.origin.type === 'delegation' ? caller.origin.parentRunId : null;
  if (to === PARENT_ADDRESS || to === parentId) {
    const parent = parentId ? await scope.runById(parentId) : null;
    return parent ? { kind: 'run', run: parent, relation: 'parent' } : null;
  }
  if (!UUID.test(to)) return null;
  const run = await scope.runById(to);
  if (run?.origin.type !== 'delegation' || run.origin.parentRunId !== caller.id) return null;
  return { kind: 'run', run, relation: 'child' };
}

/**
 * Every recipient of a `send_message`, resolved before anything is sent (decision 0059):
 * teammates (a team expanded to its live members), then the caller's parent or children.
 * One it cannot reach — unknown, stopped, itself, an empty team, a delegated run that has
 * ended (its `finalState` named), more than MAX_MESSAGE_RECIPIENTS in all — refuses the call.
 */
export async function resolveRecipients(scope: RecipientScope, targets: readonly string[]): Promise<Recipient[]> {
  const reachable = scope.roster.filter((mate) => mate.status !== 'stopped' && mate.sessionId !== scope.ownSession).map((mate) => mate.name);
  const resolved = new Map<string, Recipient>();
  const add = (recipient: Recipient) => resolved.set(recipient.kind === 'teammate' ? recipient.mate.sessionId : recipient.run.sessionId, recipient);
  for (const to of targets) {
    if (to.startsWith(TEAM_ADDRESS_PREFIX)) {
      const members = resolveTeam(scope.roster, to.slice(TEAM_ADDRESS_PREFIX.length), scope.ownSession);
      if (typeof members === 'string') throw unreachable(to, members, reachable);
      for (const mate of members) add({ kind: 'teammate', mate });
      continue;
    }
    const mate = resolveTeammate(scope.roster, to, scope.ownSession);
    if (typeof mate !== 'string') {
      add({ kind: 'teammate', mate });
      continue;
    }
    const relative = mate === 'unknown' ? await resolveRelative(scope, to) : null;
    if (!relative) throw unreachable(to, mate, reachable);
    if (relative.kind === 'run' && isTerminalRunStatus(relative.run.status)) throw unreachable(to, 'ended', reachable, { finalState: relative.run.status });
    add(relative);
  }
  if (resolved.size > MAX_MESSAGE_RECIPIENTS) throw unreachable(targets.join(', '), 'too_many', reachable, { max: MAX_MESSAGE_RECIPIENTS });
  return [...resolved.values()];
}
