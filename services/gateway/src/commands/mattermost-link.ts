import { MATTERMOST_FACT_KINDS, type AcceptedFact, type MattermostFactKind } from '@switchyard/contracts';
import { mattermostLinkFact, type ChangeAuthor } from '@switchyard/core';
import { ChangeFacts } from '../audited-change';
import type { MattermostLinkChange, NotificationStore } from '../notification-ports';
import type { FactFlusher } from '../fact-ports';
import { linkCodeHash } from './notification-settings';

/** What making and removing a Mattermost link needs. */
export interface MattermostLinkDeps {
  notifications: NotificationStore;
  /** Relays `mattermost.*` facts before the answer. */
  outbox: FactFlusher;
}

/** Who makes or removes a link: the member it is for, acting through Mattermost. */
function linkAuthor(workspace: { id: string; slug: string }, change: MattermostLinkChange): ChangeAuthor {
  const actor = { type: 'member' as const, id: change.userId, ...(change.userName ? { name: change.userName.slice(0, 256) } : {}) };
  return { workspaceId: workspace.id, workspaceSlug: workspace.slug, actor };
}

function linkFact(workspace: { id: string; slug: string }, kind: MattermostFactKind, mattermostUserId: string, change: MattermostLinkChange): AcceptedFact {
  const { userId, role, previousUserId } = change;
  return mattermostLinkFact(linkAuthor(workspace, change), kind, { mattermostUserId, userId, role, ...(previousUserId !== undefined ? { previousUserId } : {}) });
}

/**
 * `/switchyard link <code>`: uses the one-time code and links the Mattermost
 * user to the code's member, recording `mattermost.linked` (actor: that
 * member). False when the code is unknown, used or expired (nothing recorded).
 */
export async function linkMattermostUser(deps: MattermostLinkDeps, workspace: { id: string; slug: string }, code: string, mattermostUserId: string, correlationId: string): Promise<boolean> {
  const facts = new ChangeFacts(correlationId);
  const linked = await deps.notifications.consumeLinkCode(workspace.id, linkCodeHash(code), mattermostUserId, (change) =>
    facts.record(linkFact(workspace, MATTERMOST_FACT_KINDS.linked, mattermostUserId, change)),
  );
  await deps.outbox.flush(facts.ids);
  return linked !== null;
}

/**
 * `/switchyard unlink`: removes the Mattermost user's link, recording
 * `mattermost.unlinked` (actor: the member it acted as). False when it had
 * none (nothing recorded).
 */
export async function unlinkMattermostUser(deps: MattermostLinkDeps, workspace: { id: string; slug: string }, mattermostUserId: string, correlationId: string): Promise<boolean> {
  const facts = new ChangeFacts(correlationId);
  const removed = await deps.notifications.unlink(workspace.id, mattermostUserId, (change) => facts.record(linkFact(workspace, MATTERMOST_FACT_KINDS.unlinked, mattermostUserId, change)));
  await deps.outbox.flush(facts.ids);
  return removed;
}
