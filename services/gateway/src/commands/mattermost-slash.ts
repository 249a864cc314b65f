import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, ApprovalIdSchema, ErrorCode, type MattermostSlashCommand } from '@switchyard/contracts';
import type { ApprovalDecisions, NotificationStore, WorkspaceOverviewReader } from '../notification-ports';
import type { FactFlusher } from '../fact-ports';
import type { SettingsStore } from '../settings-ports';
import type { UserNameLookup } from '../audited-change';
import { setKillSwitch } from './kill-switch';
import { linkedPrincipal } from './mattermost-action';
import { linkMattermostUser, unlinkMattermostUser } from './mattermost-link';

/** What `/switchyard` needs. */
export interface SlashCommandDeps {
  notifications: NotificationStore;
  readSecret: ((workspaceId: string, name: string) => Promise<string | null>) | null;
  overview: WorkspaceOverviewReader;
  decisions: ApprovalDecisions;
  settings: SettingsStore;
  outbox: FactFlusher;
  /** Names the person on the facts of a pause or resume. */
  userName: UserNameLookup;
}

/** A slash command's answer: seen by the caller only. */
export interface SlashAnswer {
  response_type: 'ephemeral';
  text: string;
}

const USAGE = 'Usage: `/switchyard status | runs [agent] | approvals | approve <id> [note] | deny <id> [note] | pause | resume | link <code> | unlink`';
const say = (text: string): SlashAnswer => ({ response_type: 'ephemeral', text });
const sha = (text: string) => createHash('sha256').update(text).digest();

/**
 * Checks the command's token against the workspace's `commandTokenSecret`
 * (constant time, over hashes so lengths leak nothing). A workspace without
 * one, or an unknown workspace, refuses alike.
 */
async function verifyToken(deps: SlashCommandDeps, slug: string, token: string): Promise<{ id: string; slug: string }> {
  const refused = new AppError(ErrorCode.INTEGRATION_SIGNATURE_INVALID, 'the slash command token does not verify');
  const workspace = await deps.notifications.workspaceBySlug(slug);
  if (!workspace || !deps.readSecret) throw refused;
  const connection = (await deps.notifications.getSettings(workspace.id))?.connection;
  if (connection?.type !== 'bot' || !connection.commandTokenSecret) throw refused;
  const expected = await deps.readSecret(workspace.id, connection.commandTokenSecret);
  if (expected === null || !timingSafeEqual(sha(expected), sha(token))) throw refused;
  return workspace;
}

/**
 * `/switchyard …` from Mattermost (PITFALLS: token-verified, answered within
 * 3 s). A bad token is a 401; everything else is answered as text the
 * caller alone sees — an unlinked user or a missing role is told so, and
 * nothing changes.
 */
export async function runSlashCommand(deps: SlashCommandDeps, slug: string, command: MattermostSlashCommand, correlationId: string): Promise<SlashAnswer> {
  const workspace = await verifyToken(deps, slug, command.token);
  const [verb = '', ...rest] = command.text.trim().split(/\s+/).filter((word) => word.length > 0);
  try {
    if (verb === 'link') {
      const linked = rest[0] ? await linkMattermostUser(deps, workspace, rest[0], command.user_id, correlationId) : false;
      return say(linked ? `Linked to your Switchyard account in \`${workspace.slug}\`.` : 'That code is unknown, used or expired: ask for a new one (POST …/integrations/mattermost/link-codes).');
    }
    if (verb === 'unlink') {
      const removed = await unlinkMattermostUser(deps, workspace, command.user_id, correlationId);
      return say(removed ? `Unlinked from your Switchyard account in \`${workspace.slug}\`.` : 'This Mattermost user is not linked to this workspace.');
    }
    if (verb === 'status') return status(deps, await linkedPrincipal(deps.notifications, workspace, command.user_id, 'viewer'));
    if (verb === 'runs') return runs(deps, (await linkedPrincipal(deps.notifications, workspace, command.user_id, 'viewer')).workspaceId, rest[0] ?? null);
    if (verb === 'approvals') return approvals(deps, (await linkedPrincipal(deps.notifications, workspace, command.user_id, 'viewer')).workspaceId);
    if (verb === 'approve' || verb === 'deny') {
      const id = ApprovalIdSchema.safeParse(rest[0]);
      if (!id.success) return say(`\`${verb}\` needs an approval id. ${USAGE}`);
      const principal = await linkedPrincipal(deps.notifications, workspace, command.user_id, 'member');
      const note = rest.slice(1).join(' ').slice(0, 2_000);
      const approval = await deps.decisions.decide(principal, id.data, { decision: verb, ...(note ? { note } : {}) }, correlationId);
      return say(`Approval \`${approval.id}\` is now **${approval.status}**.`);
    }
    if (verb === 'pause' || verb === 'resume') {
      await setKillSwitch(deps, await linkedPrincipal(deps.notifications, workspace, command.user_id, 'admin'), verb === 'pause', correlationId);
      return say(verb === 'pause' ? 'Agents are **paused** (kill switch on).' : 'Agents are **running** again (kill switch off).');
    }
    return say(USAGE);
  } catch (error) {
    if (error instanceof AppError) return say(refusalText(error));
    throw error;
  }
}

function refusalText(error: AppError): string {
  switch (error.code) {
    case ErrorCode.INTEGRATION_USER_NOT_LINKED:
      return 'Your Mattermost account is not linked to this workspace: get a code (POST …/integrations/mattermost/link-codes) and run `/switchyard link <code>`.';
    case ErrorCode.FORBIDDEN:
      return `Refused: ${error.message}.`;
    case ErrorCode.APPROVAL_NOT_FOUND:
      return 'No such approval in this workspace.';
    case ErrorCode.APPROVAL_ALREADY_DECIDED:
      return `That approval was already ${(error.data as { status?: string } | undefined)?.status ?? 'decided'}.`;
    default:
      throw error;
  }
}

async function status(deps: SlashCommandDeps, principal: { workspaceId: string; workspaceSlug: string }): Promise<SlashAnswer> {
  const [settings, counts, pending] = await Promise.all([deps.settings.get(principal.workspaceId), deps.overview.runCounts(principal.workspaceId), deps.overview.pendingApprovals(principal.workspaceId, 200)]);
  return say(
    `**${principal.workspaceSlug}**: agents ${settings.agentsPaused ? '**paused**' : 'running'} · ${counts.running ?? 0} running · ${counts.queued ?? 0} queued · ` +
      `${counts.awaiting_approval ?? 0} awaiting approval · ${counts.awaiting_event ?? 0} waiting for a fact · ${pending.length}${pending.length === 200 ? '+' : ''} pending approvals`,
  );
}

async function runs(deps: SlashCommandDeps, workspaceId: string, agent: string | null): Promise<SlashAnswer> {
  const found = await deps.overview.recentRuns(workspaceId, agent, 10);
  if (found.length === 0) return say(agent ? `No runs of \`${agent}\`.` : 'No runs yet.');
  return say(found.map((run) => `\`${run.id}\` ${run.agentName} **${run.status}**${run.reason ? ` (${run.reason})` : ''} ${run.queuedAt.toISOString()}`).join('\n'));
}

async function approvals(deps: SlashCommandDeps, workspaceId: string): Promise<SlashAnswer> {
  const pending = await deps.overview.pendingApprovals(workspaceId, 10);
  if (pending.length === 0) return say('No pending approvals.');
  return say(pending.map((a) => `\`${a.id}\` ${a.tool ? `${a.tool.name} (${a.tool.class})` : 'plan'} · run \`${a.runId}\` · expires ${a.expiresAt}`).join('\n'));
}
