import { ApprovalFactPayloadSchema, type ApprovalFactPayload, type Fact } from '@switchyard/contracts';
import { signActionContext } from './action-signature';
import type { MattermostAttachment } from './mattermost-rest';

/** How buttons are made: where Mattermost calls back and the key that signs their context. */
export interface ButtonSigner {
  /** The gateway's `/integrations/mattermost/actions`, as the Mattermost server reaches it. */
  actionUrl: string;
  key: Uint8Array;
}

/** A message ready to post. */
export interface RenderedMessage {
  message: string;
  attachments?: MattermostAttachment[];
}

/** The subject a delivery is recorded under (`approval:<id>`): how an approval's posts are found again. */
export const subjectKey = (fact: Pick<Fact, 'subject'>): string => `${fact.subject.type}:${fact.subject.id}`;

/**
 * Text from facts is data: `@channel`, `@all` or `@someone` in a payload must
 * not notify anyone, so a zero-width space breaks every mention.
 */
export function neutralize(text: string): string {
  return text.replace(/@(?=[\w.-])/g, '@\u200b');
}

function valueAt(fact: Fact, workspace: string, path: string): unknown {
  const root: Record<string, unknown> = { ...fact, workspace };
  let value: unknown = root;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** A template with `{{path}}` placeholders filled from the fact (unknown paths become empty). */
export function renderTemplate(template: string, fact: Fact, workspace: string): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]{1,200})\s*\}\}/g, (_match, path: string) => {
    const value = valueAt(fact, workspace, path);
    if (value === undefined || value === null) return '';
    return neutralize(typeof value === 'string' ? value : JSON.stringify(value));
  });
}

/** The platform's text for a fact when its rule has no template. */
export function defaultMessage(fact: Fact, workspace: string): string {
  const payload = fact.payload as Record<string, unknown>;
  if (fact.kind === 'workspace.settings_changed') {
    return `**Kill switch** in \`${workspace}\`: agents are ${payload.agentsPaused === true ? '**paused**' : '**running**'}`;
  }
  const detail = ['reason', 'error', 'summary'].map((key) => payload[key]).find((value) => typeof value === 'string');
  const line = `**${fact.kind}** in \`${workspace}\` — ${fact.subject.type} \`${fact.subject.id}\``;
  return neutralize(detail ? `${line}: ${String(detail).slice(0, 1_000)}` : line);
}

/** The approval an `approval.*` fact carries, or null when its payload is not one. */
export function approvalOf(fact: Fact): ApprovalFactPayload | null {
  const parsed = ApprovalFactPayloadSchema.safeParse(fact.payload);
  return parsed.success ? parsed.data : null;
}

function approvalText(approval: ApprovalFactPayload, agentName: string | null): string {
  const what = approval.tool ? `\`${approval.tool.name}\` (${approval.tool.class})` : 'the run’s plan';
  const reason = approval.reason ? `\n> ${neutralize(approval.reason.slice(0, 500))}` : '';
  const who = agentName ? `Agent **${neutralize(agentName)}** (run \`${approval.runId}\`)` : `Agent \`${approval.agentId}\` (run \`${approval.runId}\`)`;
  return `${who} asks to use ${what}.${reason}\n\`\`\`\n${approval.argumentsPreview.slice(0, 1_500).replace(/```/g, "'''")}\n\`\`\``;
}

/** A pending approval's post: the agent that asks (by name when known), its summary and, with a signer, Approve and Deny buttons. */
export function approvalRequestMessage(approval: ApprovalFactPayload, workspace: string, signer: ButtonSigner | null, agentName: string | null = null): RenderedMessage {
  const exp = Date.parse(approval.expiresAt);
  const button = (decision: 'approve' | 'deny') => ({
    id: decision,
    name: decision === 'approve' ? 'Approve' : 'Deny',
    type: 'button' as const,
    style: decision === 'approve' ? ('success' as const) : ('danger' as const),
    integration: { url: signer!.actionUrl, context: { ...signActionContext(signer!.key, { approvalId: approval.id, workspace, decision, exp, url: signer!.actionUrl }) } },
  });
  return {
    message: `**Approval requested** in \`${workspace}\` (\`${approval.id}\`)`,
    attachments: [
      {
        fallback: `Approval requested: ${approval.id}`,
        color: '#f2a100',
        text: approvalText(approval, agentName),
        footer: `expires ${approval.expiresAt}`,
        ...(signer ? { actions: [button('approve'), button('deny')] } : {}),
      },
    ],
  };
}

/** A decided (or expired) approval's post: the outcome in place of the buttons. */
export function approvalOutcomeMessage(approval: ApprovalFactPayload, workspace: string, deciderName: string | null, agentName: string | null = null): RenderedMessage {
  const by =
    approval.decidedBy?.type === 'member' ? ` by ${neutralize(approval.decidedBy.name ?? deciderName ?? approval.decidedBy.userId)}` : approval.decidedBy?.type === 'system' ? ` (${approval.decidedBy.reason})` : '';
  const outcome = approval.status === 'approved' ? 'Approved' : approval.status === 'denied' ? 'Denied' : approval.status === 'expired' ? 'Expired' : 'Pending';
  const note = approval.note ? `\n> ${neutralize(approval.note.slice(0, 500))}` : '';
  return {
    message: `**Approval ${outcome.toLowerCase()}** in \`${workspace}\` (\`${approval.id}\`)`,
    attachments: [
      {
        fallback: `Approval ${outcome.toLowerCase()}: ${approval.id}`,
        color: approval.status === 'approved' ? '#3db887' : '#d24b4e',
        text: `${approvalText(approval, agentName)}\n**${outcome}**${by}${approval.decidedAt ? ` at ${approval.decidedAt}` : ''}${note}`,
      },
    ],
  };
}
