import { APPROVAL_FACT_KINDS, type Fact, type NotificationConnection, type NotificationJob, type NotificationSettings } from '@switchyard/contracts';
import {
  approvalOf,
  approvalOutcomeMessage,
  approvalRequestMessage,
  defaultMessage,
  renderTemplate,
  subjectKey,
  type ButtonSigner,
  type MattermostAnswer,
  type MattermostRest,
  type MattermostTarget,
  type RenderedMessage,
} from '@switchyard/core';
import { createHash } from 'node:crypto';
import type { Logger } from '@switchyard/logging';
import type { NotifierStore } from './ports';

/** What became of one try of a delivery, for the queue adapter to act on. */
export type DeliveryOutcome =
  | { type: 'done'; result: 'posted' | 'updated' | 'already_posted' | 'skipped'; postId?: string | null }
  /** Try again at `at` without using an attempt (a 429, or the target is backing off). */
  | { type: 'later'; at: number; reason: string }
  /** Failed; retry with backoff (uses an attempt). */
  | { type: 'retry'; reason: string; retryAfterMs?: number }
  /** Cannot succeed (a 4xx, a refused URL, a missing secret): give up. */
  | { type: 'give_up'; reason: string };

/** Options of Delivery. */
export interface DeliveryDeps {
  store: NotifierStore;
  rest: MattermostRest;
  /** Null without NOTIFIER_ACTION_URL or SECRETS_KEY: approval posts carry no buttons. */
  signer: ButtonSigner | null;
  log: Logger;
  /** The first backoff of a target that failed; doubles per consecutive failure, capped at 5 minutes. */
  backoffMs: number;
  now?: () => number;
}

const MAX_TARGET_BACKOFF_MS = 5 * 60_000;

/**
 * Mattermost's dedupe key of a post: the same for every try of one (fact,
 * rule), so a post retried after a crash (made, not yet recorded) is
 * answered with the post already made. 26 characters, as its own ids.
 */
export function pendingPostId(factId: string, ruleId: string): string {
  return createHash('sha256').update(`${factId}\n${ruleId}`).digest('hex').slice(0, 26);
}

/**
 * Makes one delivery: renders, posts (or updates) and records it. A target
 * (a workspace's channel) that failed backs off as a whole: its other
 * deliveries wait for its gate without a request, so a channel failing for
 * minutes costs the other workspaces nothing.
 */
export class Delivery {
  private readonly gates = new Map<string, { until: number; failures: number }>();
  private readonly now: () => number;

  constructor(private readonly deps: DeliveryDeps) {
    this.now = deps.now ?? Date.now;
  }

  async process(job: NotificationJob): Promise<DeliveryOutcome> {
    const saved = (await this.deps.store.settingsOf([job.workspaceId])).get(job.workspaceId);
    const rule = saved?.settings.rules.find((candidate) => candidate.id === job.ruleId);
    // Settings changed since the job was queued: a removed rule or connection posts nothing.
    if (!saved || !rule || !saved.settings.connection) return { type: 'done', result: 'skipped' };
    const connection = saved.settings.connection;
    const channel = rule.channel ?? saved.settings.defaultChannel;
    const targetKey = `${job.workspaceId}|${connection.type === 'bot' ? `${connection.serverUrl}|${channel}` : connection.webhookUrlSecret}`;
    const gate = this.gates.get(targetKey);
    if (gate && gate.until > this.now()) return { type: 'later', at: gate.until, reason: 'target backing off' };
    const target = await this.targetOf(job.workspaceId, connection);
    if (!target) return { type: 'give_up', reason: 'the connection’s secret is missing' };
    const startedAt = this.now();
    const outcome = job.type === 'post' ? await this.post(job, saved, target, channel) : await this.update(job, saved.slug, target);
    this.settle(targetKey, outcome, startedAt);
    return outcome;
  }

  private async post(job: Extract<NotificationJob, { type: 'post' }>, saved: { slug: string; settings: NotificationSettings }, target: MattermostTarget, channel: string | null): Promise<DeliveryOutcome> {
    const { fact, ruleId } = job;
    const done = await this.deps.store.delivery(fact.id, ruleId);
    if (done) return { type: 'done', result: 'already_posted', postId: done.postId };
    const rule = saved.settings.rules.find((candidate) => candidate.id === ruleId)!;
    const rendered = await this.render(fact, job.workspaceId, saved.slug, rule.template, target.type === 'bot');
    const answer = await this.deps.rest.createPost(target, {
      channel_id: channel ?? '',
      message: rendered.message,
      ...(rendered.attachments ? { props: { attachments: rendered.attachments } } : {}),
      pending_post_id: pendingPostId(fact.id, ruleId),
    });
    if (!answer.ok) return failed(answer);
    await this.deps.store.recordDelivery({ factId: fact.id, ruleId, workspaceId: job.workspaceId, subject: subjectKey(fact), channel, postId: answer.postId });
    // Decided while this was being posted: its outcome fact may have found no post to update yet.
    if (fact.kind === APPROVAL_FACT_KINDS.requested && answer.postId && target.type === 'bot') await this.catchUpOutcome(fact, job.workspaceId, saved.slug, target, answer.postId);
    return { type: 'done', result: 'posted', postId: answer.postId };
  }

  private async update(job: Extract<NotificationJob, { type: 'update' }>, slug: string, target: MattermostTarget): Promise<DeliveryOutcome> {
    const posted = await this.deps.store.delivery(job.postFactId, job.ruleId);
    const approval = approvalOf(job.fact);
    if (!posted?.postId || !approval || target.type !== 'bot') return { type: 'done', result: 'skipped' };
    const rendered = await this.outcome(approval, job.workspaceId, slug);
    const answer = await this.deps.rest.patchPost(target, posted.postId, { message: rendered.message, props: { attachments: rendered.attachments ?? [] } });
    return answer.ok ? { type: 'done', result: 'updated', postId: posted.postId } : failed(answer);
  }

  /** An approval decided while its post was being made: its outcome fact may have found no post to update, so update it now. */
  private async catchUpOutcome(fact: Fact, workspaceId: string, slug: string, target: Extract<MattermostTarget, { type: 'bot' }>, postId: string): Promise<void> {
    const requested = approvalOf(fact);
    const current = requested ? await this.deps.store.approval(workspaceId, requested.id) : null;
    if (!current || current.status === 'pending') return;
    const rendered = await this.outcome(current, workspaceId, slug);
    const answer = await this.deps.rest.patchPost(target, postId, { message: rendered.message, props: { attachments: rendered.attachments ?? [] } });
    // Not fatal: the outcome fact's own update job patches it too.
    if (!answer.ok) this.deps.log.warn({ approvalId: current.id, status: answer.status }, 'approval post not updated at once');
  }

  private async render(fact: Fact, workspaceId: string, slug: string, template: string | undefined, buttons: boolean): Promise<RenderedMessage> {
    const approval = fact.kind === APPROVAL_FACT_KINDS.requested ? approvalOf(fact) : null;
    if (approval && !template) {
      const current = await this.deps.store.approval(workspaceId, approval.id);
      // Posted late (after a backoff): an approval decided meanwhile shows its outcome, not buttons.
      if (current && current.status !== 'pending') return this.outcome(current, workspaceId, slug);
      const agentName = await this.deps.store.agentName(workspaceId, approval.agentId);
      return approvalRequestMessage(approval, slug, buttons ? this.deps.signer : null, agentName);
    }
    if (approval && (fact.kind === APPROVAL_FACT_KINDS.decided || fact.kind === APPROVAL_FACT_KINDS.expired) && !template) return this.outcome(approval, workspaceId, slug);
    return { message: template ? renderTemplate(template, fact, slug) : defaultMessage(fact, slug) };
  }

  private async outcome(approval: NonNullable<ReturnType<typeof approvalOf>>, workspaceId: string, slug: string): Promise<RenderedMessage> {
    const name = approval.decidedBy?.type === 'member' ? (approval.decidedBy.name ?? (await this.deps.store.userName(approval.decidedBy.userId))) : null;
    return approvalOutcomeMessage(approval, slug, name, await this.deps.store.agentName(workspaceId, approval.agentId));
  }

  private async targetOf(workspaceId: string, connection: NotificationConnection): Promise<MattermostTarget | null> {
    if (connection.type === 'bot') {
      const token = await this.deps.store.secret(workspaceId, connection.tokenSecret);
      return token === null ? null : { type: 'bot', serverUrl: connection.serverUrl, token };
    }
    const url = await this.deps.store.secret(workspaceId, connection.webhookUrlSecret);
    return url === null ? null : { type: 'webhook', url };
  }

  /**
   * Opens or closes the target's gate from what its request got. Requests
   * that were in flight together fail together: only one made after the gate
   * last opened doubles its backoff.
   */
  private settle(targetKey: string, outcome: DeliveryOutcome, startedAt: number): void {
    if (outcome.type === 'done') {
      this.gates.delete(targetKey);
      return;
    }
    if (outcome.type !== 'retry' && outcome.type !== 'later') return;
    const previous = this.gates.get(targetKey);
    if (previous && previous.until > startedAt) return;
    const failures = (previous?.failures ?? 0) + 1;
    const backoff = Math.min(this.deps.backoffMs * 2 ** (failures - 1), MAX_TARGET_BACKOFF_MS);
    const until = outcome.type === 'later' ? outcome.at : this.now() + Math.max(backoff, outcome.retryAfterMs ?? 0);
    this.gates.set(targetKey, { until, failures });
    if (this.gates.size > 10_000) this.gates.clear();
  }
}

function failed(answer: Extract<MattermostAnswer, { ok: false }>): DeliveryOutcome {
  const reason = `${answer.status ?? 'unreachable'}: ${answer.message}`.slice(0, 500);
  if (answer.status === 429) return { type: 'later', at: Date.now() + (answer.retryAfterMs ?? 1_000), reason };
  if (!answer.retriable) return { type: 'give_up', reason };
  return { type: 'retry', reason, ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }) };
}
